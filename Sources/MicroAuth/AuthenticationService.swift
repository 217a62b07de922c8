import Crypto
import Foundation
import Logging
import MicroCore
import Synchronization

/// The sign-in flow's state while the app runs: its settings, the throttle, the dummy hashes,
/// the stamps of hashes it upgraded. A plugin finds it as `request.service(AuthenticationService.self)`,
/// and one that builds on the sign-in flow requires it at start-up
/// (``/MicroCore/App/require(_:problem:)``).
public final class AuthenticationService: Sendable {
    /// The app's ``Authentication``: its user store, hasher, paths and texts.
    public let settings: Authentication
    package let throttle: SignInThrottle
    private let dummyHashes = DummyHashes()
    /// Scripts' recently checked HTTP Basic credentials.
    let basicCache: BasicCredentialCache
    /// The highest cost among the hashes the store has handed out so far: a user added with a
    /// dearer cost than the store reported raises what every refusal costs from then on.
    private let highestSeenCost = Atomic<Int>(4)
    /// For each user whose hash this app re-hashes: the stamps before and after its latest
    /// re-hashes (a few, as parallel sign-ins may each try one), so that the sessions signed in
    /// with the old hash (other tabs, other devices) stay signed in while the new hash is the
    /// user's current one. Noted before the new hash is written, so that no request sees the
    /// new hash without its note.
    private let upgrades = Locked<[String: [Upgrade]]>([:])

    private struct Upgrade: Equatable {
        let from: CredentialStamp
        let to: CredentialStamp
    }

    /// The costs of the dummy hashes made so far: tests check the ones made at start-up.
    var preparedDummyCosts: [Int] { dummyHashes.costs }

    /// The `Authorization` schemes the app accepts, which a script's `401` names.
    let credentialSchemes: CredentialSchemes

    init(_ settings: Authentication, credentialSchemes: CredentialSchemes = CredentialSchemes()) {
        self.settings = settings
        self.credentialSchemes = credentialSchemes
        basicCache = BasicCredentialCache(lifetime: max(0, settings.basicCredentialLifetime.components.seconds))
        throttle = SignInThrottle(limits: settings.throttleLimits, digestKey: settings.throttleStore?.digestKey ?? SymmetricKey(size: .bits256))
        // Made now, at start-up, for every cost from the store's typical one to the slowest, so
        // that the first refusals cost what the next ones do.
        let slowest = slowestCost
        for cost in (settings.users.typicalCost.map { min(max(4, $0), slowest) } ?? slowest)...slowest {
            _ = try? dummyHashes.hash(cost: cost)
        }
    }

    /// The cost every refusal pays: the highest among the store's hashes as it reports them,
    /// those it handed out since, and the configured cost where the store re-hashes to it.
    var slowestCost: Int {
        var cost = max(settings.users.slowestCost ?? settings.users.typicalCost ?? 4, highestSeenCost.load(ordering: .relaxed))
        if settings.users is any PasswordUpgradingUserStore { cost = max(cost, settings.passwordCost) }
        return min(31, max(4, cost))
    }

    /// Whether `password` is the one of `stored`, checked with bcrypt on the hasher's threads.
    /// Every refusal costs the work of one check at ``slowestCost``, so the time tells no name
    /// from another: an unknown name is checked against a dummy hash of that cost; a user of a
    /// cheaper cost c, refused, is also checked against dummy hashes of the costs c, c+1, ... up
    /// to the slowest, whose rounds (2^c + 2^c + 2^(c+1) + ...) add up to the slowest cost's.
    /// Real work rather than a wait: a busy machine slows both alike. A dummy hash not made yet
    /// (a cost that appeared since start-up) is made on the hasher's threads too.
    func check(_ password: String, for stored: StoredUser?, hasher: PasswordHasher) async throws -> Bool {
        if let stored, let cost = Password.cost(of: stored.enabledHash) {
            highestSeenCost.max(cost, ordering: .relaxed)
        }
        let slowest = slowestCost
        let cost = stored.flatMap { Password.cost(of: $0.enabledHash) }.map { min(max(4, $0), slowest) } ?? slowest
        let dummies = dummyHashes
        hasher.verifications.add(1, ordering: .relaxed)
        return try await hasher.run {
            // A disabled user's own hash is checked too, and refused: the time tells nothing.
            // A user without a password (``StoredUser/isNoPasswordHash(_:)``) costs a dummy check too.
            let hash = try stored.map(\.enabledHash).flatMap { Password.isValidHash($0) ? $0 : nil } ?? dummies.hash(cost: slowest)
            let matches = Password.verify(password, against: hash) && stored != nil && stored?.isDisabled == false && !password.isEmpty
            if !matches {
                for padding in cost..<max(cost, slowest) where stored != nil {
                    _ = Password.verify(password, against: try dummies.hash(cost: padding))
                }
            }
            return matches
        }
    }

    /// Whether a session signed in with `stamp` is still its user's: the store's current stamp,
    /// or the one before a re-hash this app made (the same password).
    public func isCurrent(_ stamp: CredentialStamp, username: String) -> Bool {
        let users = settings.users
        if users.isCurrent(stamp, username: username) { return true }
        guard let noted = upgrades.withLock({ $0[username] }) else { return false }
        return noted.contains { $0.from == stamp && users.isCurrent($0.to, username: username) }
    }

    /// Whether `stamp` is `current`, or became it when this instance re-hashed the user's
    /// password at another cost: a step begun with the old hash (a second factor's) goes on.
    public func stands(_ stamp: CredentialStamp, as current: CredentialStamp, username: String) -> Bool {
        if stamp == current { return true }
        return upgrades.withLock { $0[username] }?.contains { $0.from == stamp && $0.to == current } ?? false
    }

    /// After a successful sign-in: a hash of another cost than the configured one is replaced,
    /// where the store can write, on the hasher's threads (a write may wait for a lock). The
    /// sessions signed in with the old hash stay signed in. A failure leaves the old hash and is
    /// logged: the sign-in stands. Returns the user as the store now holds them when this
    /// sign-in re-hashed, so that its session carries the new stamp, which every instance
    /// learns from the store (the notes here are this instance's only).
    func upgradeHashIfNeeded(of stored: StoredUser, password: String, logger: Logger) async -> StoredUser? {
        guard Password.cost(of: stored.passwordHash) != settings.passwordCost,
            let store = settings.users as? any PasswordUpgradingUserStore
        else { return nil }
        let cost = settings.passwordCost
        let username = stored.user.username
        let upgrades = upgrades
        do {
            return try await settings.hasher.run { () throws -> StoredUser? in
                let new = try Password.hash(password, cost: cost)
                let upgrade = Upgrade(from: CredentialStamp(stored), to: CredentialStamp(username: username, passwordHash: new, roles: stored.user.roles, passwordChangeDue: stored.passwordChangeDue))
                upgrades.withLock { $0[username, default: []] = $0[username, default: []].suffix(31) + [upgrade] }
                do {
                    // False when another sign-in re-hashed it first: its note stands, not this one.
                    guard try store.replacePasswordHash(of: username, stored.passwordHash, with: new) else {
                        upgrades.withLock { $0[username]?.removeAll { $0 == upgrade } }
                        return nil
                    }
                } catch {
                    upgrades.withLock { $0[username]?.removeAll { $0 == upgrade } }
                    throw error
                }
                return StoredUser(user: stored.user, passwordHash: new, passwordChangeDue: stored.passwordChangeDue)
            }
        } catch {
            logger.warning("Could not re-hash the password of \(username) at cost \(cost): \(error)")
            return nil
        }
    }

    /// Before an attempt: the shared counts of the name and the address, when a store shares
    /// them. A store that cannot answer makes sign-in unavailable (a 503).
    func adoptSharedFailures(username: SignInThrottle.Key?, address: SignInThrottle.Key?, now: Int64, logger: Logger) async throws {
        guard let store = settings.throttleStore else { return }
        do {
            let shared = try await store.failures(username: username, address: address, window: throttle.limits.windowSeconds, now: now)
            throttle.adopt(shared, username: username, address: address, now: now)
        } catch let error as HttpError {
            // The store says why (and logs an outage once).
            throw error
        } catch {
            logger.error("Sign-in unavailable, the shared sign-in throttle cannot be read: \(error)")
            throw HttpError(.serviceUnavailable, "Sign-in is unavailable right now. Please try again in a minute.",
                headers: ["Retry-After": "60"])
        }
    }

    /// Ends an attempt: in memory, then in the shared store, whose counts (every instance's)
    /// this instance then holds. A store that fails keeps the count here only, and is logged.
    func finish(username: SignInThrottle.Key?, address: SignInThrottle.Key?, outcome: SignInThrottle.Outcome, now: Int64, logger: Logger) async {
        throttle.finish(username: username, address: address, outcome: outcome, now: now)
        guard let store = settings.throttleStore else { return }
        do {
            switch outcome {
            case .failure:
                let shared = try await store.recordFailure(username: username, address: address, window: throttle.limits.windowSeconds, now: now)
                throttle.adopt(shared, username: username, address: address, now: now)
            case .success:
                if let username { try await store.clear(username: username) }
            case .unchecked:
                break
            }
        } catch {
            logger.warning("The shared sign-in throttle did not record a sign-in: \(error)")
        }
    }

    /// Signs in, for this request only, the user a script's `Authorization: Basic` header
    /// names, when the request is answered as a script's and no session is signed in: from the
    /// cache of recent checks, else checked as the sign-in form is (a wrong password counts
    /// against the name and the address; a throttled one is a 429).
    func acceptBasicCredentials(_ request: Request) async throws {
        guard !request.isAuthenticatedByHeader, request.wantsJson,
            let header = request.headers.first(name: "Authorization"), let credentials = BasicCredentials(header: header)
        else { return }
        // A signed-in session wins (looked at only when there is a cookie: none is made here).
        if request.cookie(request.services.sessions.settings.cookieName) != nil, request.isSignedIn { return }
        let now = Int64(request.settings.clock().timeIntervalSince1970)
        let revocations = request.services.sessions.settings.revocations
        let step = request.signInHooks.step
        if let user = basicCache.user(for: credentials, now: now, stillValid: { entry in
            isCurrent(entry.stamp, username: entry.user.username)
                // Checked in a whole second, taken as its start: a revocation later in that
                // second may have come after the check, and the user is looked up again.
                && !revocations.isRevoked(username: entry.user.username, created: entry.checked * 1000)
                && !(step?.isNew(for: entry.user.username, since: entry.checked) ?? false)
        }) {
            request.signInByPassword(user)
            return
        }
        guard let stored = try await request.services.signInMetrics.signIn(via: .basic, {
            try await request.checkCredentials(username: credentials.username, password: credentials.password)
        }) else { return }
        // The password alone does not open an account with a further step: nothing is cached.
        if let due = request.storage[SignInStepDue.self] { throw due.basicRefusal }
        // Nor one whose password someone else set: never cached, so a later request is refused
        // too (the mark goes only with a new password, which no cached entry holds).
        if stored.passwordChangeDue { throw StoredUser.passwordChangeDueRefusal }
        basicCache.remember(stored, for: credentials, now: now)
        request.signInByPassword(stored.user)
    }

    /// The app's template for the page; else the built-in one (`builtIn`) in the app's layout;
    /// else, for an app without a layout, the whole page `fallback` writes.
    func page(
        _ request: Request, template: String, builtIn: String, title: String, values: [String: Any] = [:], fallback: (Request) -> String
    ) throws -> String {
        let views = request.services.views
        let values = values.merging(["title": title]) { $1 }
        if views.hasTemplate(template) { return try request.render(template, values) }
        if views.hasTemplate("layout") { return try request.render(builtIn, values) }
        request.response.contentType = "text/html; charset=utf-8"
        return fallback(request)
    }
}
