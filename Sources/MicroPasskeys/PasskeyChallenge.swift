import Crypto
import MicroCore

/// A challenge for one ceremony: 32 random bytes the authenticator signs over, what they are
/// for, and when they were made. Kept in the session until the answer comes back, spent then,
/// and refused once older than ``lifetime``.
public struct PasskeyChallenge: Sendable, Equatable, Codable {
    /// The ceremony a challenge is for: an answer for one is never taken for another.
    public enum Purpose: String, Sendable, Codable {
        /// Adding a passkey to the signed-in account.
        case registration
        /// Signing in with a passkey, no name typed.
        case signIn
        /// The second step of a password sign-in.
        case secondFactor
        /// Confirming an account change, in place of the current password.
        case confirmation
    }

    /// How long an answer is taken, in seconds: time for a person to find their phone.
    public static let lifetime: Int64 = 300

    /// The random bytes.
    public let bytes: [UInt8]
    /// What they are for.
    public let purpose: Purpose
    /// When they were made, in seconds since 1970.
    public let issuedAt: Int64

    /// A fresh challenge for `purpose`, made at `now` (seconds since 1970).
    public init(purpose: Purpose, now: Int64) {
        bytes = SymmetricKey(size: .bits256).withUnsafeBytes { Array($0) }
        self.purpose = purpose
        issuedAt = now
    }

    init(bytes: [UInt8], purpose: Purpose, issuedAt: Int64) {
        self.bytes = bytes
        self.purpose = purpose
        self.issuedAt = issuedAt
    }

    /// The challenge as the page hands it to the browser: base64url.
    public var text: String { Base64Url.encode(bytes) }

    /// How far ahead of `now` a challenge may have been made: another instance's clock may be a
    /// little ahead of this one's.
    static let clockSkew: Int64 = 5

    /// Whether it is still taken at `now`; one from further in the future than the clocks of
    /// two instances differ (a clock set back) is not.
    public func isLive(at now: Int64) -> Bool {
        now >= issuedAt - Self.clockSkew && now - issuedAt < Self.lifetime
    }
}
