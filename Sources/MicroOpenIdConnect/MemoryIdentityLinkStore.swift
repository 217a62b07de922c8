import Synchronization

/// Identity links kept in this process: forgotten on restart, not shared between instances.
public final class MemoryIdentityLinkStore: IdentityLinkStore {
    private struct Links {
        var usernames: [ExternalIdentity: String] = [:]
        var identities: [UsernameAtIssuer: ExternalIdentity] = [:]
    }

    private struct UsernameAtIssuer: Hashable {
        let username: String
        let issuer: String
    }

    private let links = Mutex(Links())

    /// An empty store.
    public init() {}

    public func username(linkedTo identity: ExternalIdentity) async throws -> String? {
        links.withLock { $0.usernames[identity] }
    }

    public func identity(linkedTo username: String, issuer: String) async throws -> ExternalIdentity? {
        links.withLock { $0.identities[UsernameAtIssuer(username: username, issuer: issuer)] }
    }

    public func link(_ identity: ExternalIdentity, to username: String) async throws -> Bool {
        links.withLock { links in
            let key = UsernameAtIssuer(username: username, issuer: identity.issuer)
            switch (links.usernames[identity], links.identities[key]) {
            case (nil, nil):
                links.usernames[identity] = username
                links.identities[key] = identity
                return true
            case (let linkedUser, let linkedIdentity):
                return linkedUser == username && linkedIdentity == identity
            }
        }
    }

    public func unlink(_ identity: ExternalIdentity) async throws {
        links.withLock { links in
            guard let username = links.usernames.removeValue(forKey: identity) else { return }
            links.identities[UsernameAtIssuer(username: username, issuer: identity.issuer)] = nil
        }
    }
}
