#if OpenIdConnect
import Foundation
import Synchronization

/// Identity links kept in this process: forgotten on restart, not shared between instances.
///
/// Bounded: a link unused for ``retention`` is as none (deleted when met), and a link made with
/// ``capacity`` links kept first deletes the expired ones, then if need be the least recently
/// used, as a restart would forget it (its next sign-in links afresh, by username or verified
/// email). Sweeping only when full keeps making a link cheap.
public final class MemoryIdentityLinkStore: IdentityLinkListing {
    /// A link; its times in whole seconds since 1970, as the database store keeps them.
    private struct Link {
        var username: String
        var lastUsedAt: Int64
        var linkedAt: Int64

        /// As listed.
        func listed(_ identity: ExternalIdentity) -> IdentityLink {
            IdentityLink(
                identity: identity, username: username, linkedAt: Date(timeIntervalSince1970: TimeInterval(linkedAt)),
                lastUsedAt: Date(timeIntervalSince1970: TimeInterval(lastUsedAt)))
        }
    }

    private struct Links {
        var usernames: [ExternalIdentity: Link] = [:]
        var identities: [UsernameAtIssuer: ExternalIdentity] = [:]

        mutating func remove(_ identity: ExternalIdentity) {
            guard let link = usernames.removeValue(forKey: identity) else { return }
            identities[UsernameAtIssuer(username: link.username, issuer: identity.issuer)] = nil
        }

        /// The unexpired link of `identity` at `now`; an expired one is removed.
        mutating func live(_ identity: ExternalIdentity, now: Int64, retention: TimeInterval) -> Link? {
            guard let link = usernames[identity] else { return nil }
            guard TimeInterval(now - link.lastUsedAt) <= retention else {
                remove(identity)
                return nil
            }
            return link
        }
    }

    private struct UsernameAtIssuer: Hashable {
        let username: String
        let issuer: String
    }

    private let links = Mutex(Links())

    /// How long a link unused is kept (``IdentityLinkRetention/default``: a year).
    public let retention: Duration
    /// ``retention`` in seconds, as the links' times are compared.
    let retentionInterval: TimeInterval
    /// The most links kept: in the `any` mapping every person the provider vouches for makes one.
    public let capacity: Int

    /// The wall time, in whole seconds since 1970: what the calls given no `now` judge by.
    private static func wallTime() -> Int64 { Int64(Date().timeIntervalSince1970) }

    /// An empty store.
    public init(retention: Duration = IdentityLinkRetention.default, capacity: Int = 100_000) {
        self.retention = retention
        retentionInterval = retention / .seconds(1)
        self.capacity = max(1, capacity)
    }

    /// The username `identity` is linked to, judged at wall time; not noted as a use.
    public func username(linkedTo identity: ExternalIdentity) async throws -> String? {
        let now = Self.wallTime()
        return links.withLock { $0.live(identity, now: now, retention: retentionInterval)?.username }
    }

    public func follow(_ identity: ExternalIdentity, now: Int64) async throws -> String? {
        links.withLock { links in
            guard let link = links.live(identity, now: now, retention: retentionInterval) else { return nil }
            // Noted as the database store notes it (at most daily), so both expire alike.
            if now - link.lastUsedAt > IdentityLinkRetention.useGranularity {
                links.usernames[identity]?.lastUsedAt = now
            }
            return link.username
        }
    }

    public func identity(linkedTo username: String, issuer: String) async throws -> ExternalIdentity? {
        let now = Self.wallTime()
        return links.withLock { links in
            guard let identity = links.identities[UsernameAtIssuer(username: username, issuer: issuer)] else { return nil }
            return links.live(identity, now: now, retention: retentionInterval) == nil ? nil : identity
        }
    }

    public func link(_ identity: ExternalIdentity, to username: String) async throws -> Bool {
        try await link(identity, to: username, now: Self.wallTime())
    }

    public func link(_ identity: ExternalIdentity, to username: String, now: Int64) async throws -> Bool {
        links.withLock { links in
            let key = UsernameAtIssuer(username: username, issuer: identity.issuer)
            _ = links.live(identity, now: now, retention: retentionInterval)
            if let other = links.identities[key] { _ = links.live(other, now: now, retention: retentionInterval) }
            switch (links.usernames[identity], links.identities[key]) {
            case (nil, nil):
                if links.usernames.count >= capacity {
                    // Expired links first; when none is, the least recently used goes.
                    let expired = links.usernames.filter { TimeInterval(now - $0.value.lastUsedAt) > retentionInterval }.map(\.key)
                    for identity in expired { links.remove(identity) }
                    if links.usernames.count >= capacity,
                        let oldest = links.usernames.min(by: { $0.value.lastUsedAt < $1.value.lastUsedAt })?.key {
                        links.remove(oldest)
                    }
                }
                links.usernames[identity] = Link(username: username, lastUsedAt: now, linkedAt: now)
                links.identities[key] = identity
                return true
            case (let linked, let linkedIdentity):
                return linked?.username == username && linkedIdentity == identity
            }
        }
    }

    public func unlink(_ identity: ExternalIdentity) async throws {
        links.withLock { $0.remove(identity) }
    }

    public func links(of usernames: [String], limit: Int) async throws -> [IdentityLink] {
        let wanted = Set(usernames)
        let now = Self.wallTime()
        return links.withLock { links in
            links.usernames.filter { wanted.contains($0.value.username) && TimeInterval(now - $0.value.lastUsedAt) <= retentionInterval }
                .map { $0.value.listed($0.key) }
                .sorted { ($0.username, $0.identity.issuer, $0.identity.subject) < ($1.username, $1.identity.issuer, $1.identity.subject) }
                .prefix(max(0, limit)).map { $0 }
        }
    }

    public func allLinks(limit: Int) async throws -> [IdentityLink] {
        let now = Self.wallTime()
        return links.withLock { links in
            links.usernames.filter { TimeInterval(now - $0.value.lastUsedAt) <= retentionInterval }
                .map { $0.value.listed($0.key) }
                .sorted { ($0.username, $0.identity.issuer, $0.identity.subject) < ($1.username, $1.identity.issuer, $1.identity.subject) }
                .prefix(max(0, limit)).map { $0 }
        }
    }

    public func unlinkAll(of username: String) async throws -> [IdentityLink] {
        links.withLock { links in
            let removed = links.usernames.filter { $0.value.username == username }
            for identity in removed.keys { links.remove(identity) }
            return removed.map { $0.value.listed($0.key) }
        }
    }

    public func rename(_ username: String, to newName: String) async throws {
        links.withLock { links in
            let moving = links.usernames.filter { $0.value.username == username }
            for identity in links.usernames.filter({ $0.value.username == newName }).keys { links.remove(identity) }
            for (identity, link) in moving {
                links.remove(identity)
                var moved = link
                moved.username = newName
                links.usernames[identity] = moved
                links.identities[UsernameAtIssuer(username: newName, issuer: identity.issuer)] = identity
            }
        }
    }
}
#endif
