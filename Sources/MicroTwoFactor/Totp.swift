import Crypto
import Foundation
import MicroAuth
import MicroCore

/// Time-based one-time passwords (RFC 6238) with authenticator apps' defaults: HMAC-SHA1, a
/// code of ``digits`` digits, 30-second steps counted from 1970, and the step before and after
/// the current one accepted (a phone's clock a little off, a code typed as it changed).
public struct Totp: Sendable {
    /// The shared secret (20 random bytes for a new one, as RFC 4226 recommends).
    public let secret: [UInt8]
    /// The digits of a code: 6, as authenticator apps show.
    public let digits: Int
    /// The length of a step in seconds: 30.
    public let period: Int64

    /// The generator for `secret`.
    public init(secret: [UInt8], digits: Int = 6, period: Int64 = 30) {
        precondition((6...9).contains(digits) && period > 0, "A TOTP code has 6 to 9 digits and a positive period.")
        self.secret = secret
        self.digits = digits
        self.period = period
    }

    /// A new random secret of 20 bytes (160 bits, the HMAC-SHA1 block's output).
    public static func randomSecret() -> [UInt8] {
        var generator = SystemRandomNumberGenerator()
        return (0..<20).map { _ in UInt8.random(in: 0...255, using: &generator) }
    }

    /// The step `time` (seconds since 1970) falls in.
    public func step(at time: Int64) -> Int64 {
        time >= 0 ? time / period : (time - period + 1) / period
    }

    /// The code of `step` (RFC 4226's HOTP of the step counter), zero-padded.
    public func code(step: Int64) -> String {
        var counter = UInt64(bitPattern: step).bigEndian
        let message = withUnsafeBytes(of: &counter) { Data($0) }
        let mac = Array(HMAC<Insecure.SHA1>.authenticationCode(for: message, using: SymmetricKey(data: secret)))
        // Dynamic truncation: four bytes at the offset the last nibble names, top bit cleared.
        let offset = Int(mac[mac.count - 1] & 0x0f)
        let value = (UInt32(mac[offset] & 0x7f) << 24) | (UInt32(mac[offset + 1]) << 16) | (UInt32(mac[offset + 2]) << 8) | UInt32(mac[offset + 3])
        var modulus: UInt32 = 1
        for _ in 0..<digits { modulus *= 10 }
        let number = String(value % modulus)
        return String(repeating: "0", count: digits - number.count) + number
    }

    /// The code at `time` (seconds since 1970).
    public func code(at time: Int64) -> String {
        code(step: step(at: time))
    }

    /// The step whose code `typed` is, among the step of `time` and the one before and after
    /// it, later than `after` (the last step used: a code is good once). Spaces and dashes
    /// typed inside the code are ignored; anything else but digits refuses it. Every candidate
    /// is compared in constant time.
    public func matchingStep(of typed: String, at time: Int64, after lastUsed: Int64? = nil) -> Int64? {
        let cleaned = typed.utf8.filter { $0 != UInt8(ascii: " ") && $0 != UInt8(ascii: "-") }
        guard typed.utf8.count <= 32, cleaned.count == digits, cleaned.allSatisfy({ $0 >= UInt8(ascii: "0") && $0 <= UInt8(ascii: "9") })
        else { return nil }
        let current = step(at: time)
        var found: Int64?
        for candidate in [current - 1, current, current + 1] {
            let matches = ConstantTime.equal(Array(code(step: candidate).utf8), cleaned)
            if matches, found == nil, candidate > (lastUsed ?? Int64.min) { found = candidate }
        }
        return found
    }
}
