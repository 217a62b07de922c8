import Foundation
import Logging
import MicroAccounts
import MicroAuth
import MicroCore

/// The second factor's state while the app runs: its settings, its store (nil where users
/// cannot have one), and the data key its secrets are sealed under.
final class TwoFactorService: Sendable {
    let settings: TwoFactorSettings
    /// Nil where the account pages keep nothing in a database, or users are in a file.
    let store: TwoFactorStore?
    /// Where the account pages are.
    let accountsPrefix: String
    private let logger: Logger
    private let dataKey = Locked<DataKey?>(nil)
    /// When each user turned it on here: HTTP Basic checks cached before then no longer hold.
    private let turnedOnAt = Locked<[String: Int64]>([:])

    /// How a code was right.
    enum Method: String {
        case totp = "two_factor"
        case recoveryCode = "recovery_code"
    }

    init(settings: TwoFactorSettings, store: TwoFactorStore?, accountsPrefix: String, logger: Logger) {
        self.settings = settings
        self.store = store
        self.accountsPrefix = accountsPrefix
        var logger = logger
        logger[metadataKey: "component"] = "two-factor"
        self.logger = logger
    }

    /// The answer to HTTP Basic credentials of a user with a second factor.
    static let basicRefusal = HttpError(
        .unauthorized, "This account signs in with a second factor: a script uses an API token (Authorization: Bearer), not the password.")

    /// The key, once the app's preparations resolved it; nil in production without one.
    var key: DataKey? { dataKey.withLock { $0 } }

    /// At start: resolves the key, checks it against the database's check value (another key
    /// with secrets sealed under the old one stops a production start) and keys recovery codes
    /// kept unkeyed; in production refuses to start without a key once a user has a second
    /// factor on (their secrets could not be opened) or when some must have one.
    func prepare(_ settings: Settings) async throws {
        let key = try DataKey.resolve(settings, self.settings.dataKey)
        dataKey.withLock { $0 = key }
        if let key, let store {
            try await DataKeyCheck(store: store).verify(
                key, environment: settings.environment, now: Int64(settings.clock().timeIntervalSince1970), logger: logger)
            try await store.keyUnkeyedCodes(with: key)
            return
        }
        guard key == nil, let store else { return }
        // Without a key no one can turn a second factor on: those who must would be locked out
        // of everything but their account pages.
        if let roles = self.settings.requiredForRoles {
            throw ConfigurationError(
                "MICRO_DATA_KEY is not set, and two-factor sign-in is required (Accounts.twoFactor.requiredForRoles: \(roles.isEmpty ? "everyone" : roles.joined(separator: ", "))): it seals the users' secrets. Generate one with: openssl rand -hex 32")
        }
        guard try await store.anyEnabled() else { return }
        throw ConfigurationError(
            "MICRO_DATA_KEY is not set, and users have two-factor sign-in on: their secrets are sealed with it. Set it to the key they were sealed with (or reset their two-factor sign-in with \(OperatorCommand.resetTwoFactor) and set a new key).")
    }

    /// Whether `username` (as stored) has a second factor on.
    func isOn(_ username: String) async throws -> Bool {
        guard let store else { return false }
        return try await store.record(of: Username.key(username)) != nil
    }

    /// Notes that `username` turned it on at `now`, for the cached HTTP Basic checks.
    func noteTurnedOn(_ username: String, now: Int64) {
        turnedOnAt.withLock { map in
            if map.count >= 100_000 { map.removeAll() }
            map[Username.key(username)] = now
        }
    }

    /// Whether `username` turned it on here at or after `time`.
    func turnedOn(_ username: String, since time: Int64) -> Bool {
        guard let at = turnedOnAt.withLock({ $0[Username.key(username)] }) else { return false }
        return at >= time
    }

    /// What is kept of `codes` of `username`.
    static func digests(of codes: [String], username: String, key: DataKey) -> [String] {
        let name = Username.key(username)
        return codes.map { RecoveryCodes.digest(RecoveryCodes.normalized($0)!, of: name, key: key) }
    }

    /// The context a user's secret is sealed under in the table.
    static func context(of username: String) -> String { "micro totp secret " + Username.key(username) }
    /// The context a secret being set up is sealed under in the session.
    static func setupContext(of username: String) -> String { "micro totp setup " + Username.key(username) }

    /// Whether `code` is right for `username` at `now`: a TOTP code of a step not used before
    /// (that step is then used, on every instance), or one of their recovery codes (then gone);
    /// a right code of a step already used is ``SecondFactorCheck/reused``. Throws
    /// ``unreadable`` when their secret does not open (another data key, an altered row): the
    /// server's fault, logged as that, not a wrong code.
    func verify(_ code: String, of username: String, now: Int64) async throws -> SecondFactorCheck {
        guard let store else { return .wrong }
        let name = Username.key(username)
        guard let record = try await store.record(of: name) else { return .wrong }
        guard let key, let secret = key.open(record.sealedSecret, context: Self.context(of: record.boundName)) else {
            logger.error(
                "The two-factor secret of \(name) does not open with this MICRO_DATA_KEY: the key is not the one it was sealed with, or the row was altered. Their codes cannot be checked; set the key back, or reset their two-factor sign-in (\(OperatorCommand.resetTwoFactor)).")
            throw Self.unreadable(settings)
        }
        let digits = code.utf8.filter { $0 != UInt8(ascii: " ") && $0 != UInt8(ascii: "-") }
        if digits.count == 6, digits.allSatisfy({ (UInt8(ascii: "0")...UInt8(ascii: "9")).contains($0) }) {
            let totp = Totp(secret: secret)
            guard let step = totp.matchingStep(of: code, at: now, after: record.lastStep) else {
                return totp.matchingStep(of: code, at: now) == nil ? .wrong : .reused
            }
            // Another request may have used the step since the record was read.
            return try await store.use(step: step, of: name) ? .passed(.totp) : .reused
        }
        guard let normalized = RecoveryCodes.normalized(code) else { return .wrong }
        for bound in try await store.codeBindings(of: name) {
            if try await store.useCode(digest: RecoveryCodes.digest(normalized, of: bound, key: key), of: name) { return .passed(.recoveryCode) }
            // Codes an instance of an earlier version stored while this one ran; keyed at the next start.
            if try await store.useCode(digest: RecoveryCodes.unkeyedDigest(normalized, of: bound), of: name) { return .passed(.recoveryCode) }
        }
        return .wrong
    }

    /// The answer when a user's secret does not open: a 503, which is no failed sign-in.
    static func unreadable(_ settings: TwoFactorSettings) -> HttpError {
        HttpError(.serviceUnavailable, settings.unreadableMessage)
    }

    /// New recovery codes for `username`, stored as digests (the old ones void); the codes to
    /// show once.
    func newRecoveryCodes(of username: String) async throws -> [String] {
        guard let store else { return [] }
        guard let key else { throw HttpError(.serviceUnavailable, settings.noKeyMessage) }
        let codes = RecoveryCodes.make()
        try await store.replaceCodes(of: Username.key(username), with: Self.digests(of: codes, username: username, key: key))
        return codes
    }
}
