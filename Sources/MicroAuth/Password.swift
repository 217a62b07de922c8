import CCrypt
import Foundation
import MicroCore

/// bcrypt password hashes through the system's libcrypt (`crypt_gensalt_rn` + `crypt_r`).
///
/// Writes `$2b$` hashes; verifies `$2a$` (Ruby's bcrypt gem), `$2b$` and `$2y$` (PHP) ones.
/// These calls take a quarter of a second at cost 12: in a server, use ``PasswordHasher``,
/// which runs them off the event loop.
///
/// ```swift
/// let hash = try Password.hash("secret123")          // $2b$12$...
/// Password.verify("secret123", against: hash)         // true
/// ```
public enum Password {
    /// The cost (log2 of the rounds) of new hashes.
    public static let defaultCost = 12
    /// The costs bcrypt takes.
    public static let costs = 4...31
    /// The longest password, in UTF-8 bytes, that is hashed or checked: bcrypt reads only the
    /// first 72 bytes and would silently ignore the rest, so two passwords sharing those 72
    /// would match each other. As OWASP's Password Storage cheat sheet advises for bcrypt, a
    /// longer one is refused, never truncated: a new hash throws, a check answers false.
    public static let maximumLength = 72
    /// The longest password a new hash accepts: ``maximumLength``.
    public static let hashableLength = maximumLength

    /// A new `$2b$` hash of `password` with a random salt.
    public static func hash(_ password: String, cost: Int = defaultCost) throws -> String {
        guard costs.contains(cost) else {
            throw PasswordError("bcrypt cost must be from \(costs.lowerBound) to \(costs.upperBound), not \(cost).")
        }
        guard password.utf8.count <= maximumLength else {
            throw PasswordError("bcrypt reads only the first \(maximumLength) bytes of a password; this one has \(password.utf8.count).")
        }
        try check(password)
        var setting = [CChar](repeating: 0, count: Int(CRYPT_GENSALT_OUTPUT_SIZE))
        guard crypt_gensalt_rn("$2b$", UInt(cost), nil, 0, &setting, Int32(setting.count)) != nil else {
            throw PasswordError("libcrypt could not make a bcrypt salt (errno \(errno)).")
        }
        let settingText = String(decoding: setting.prefix { $0 != 0 }.map { UInt8(bitPattern: $0) }, as: UTF8.self)
        guard let hash = crypt(password, setting: settingText) else {
            throw PasswordError("libcrypt could not hash the password (errno \(errno)).")
        }
        return hash
    }

    /// Whether `password` matches `hash`. False for a malformed hash. The result is compared in
    /// constant time.
    public static func verify(_ password: String, against hash: String) -> Bool {
        guard isValidHash(hash), (try? check(password)) != nil, let computed = crypt(password, setting: hash) else {
            return false
        }
        let a = Array(computed.utf8)
        let b = Array(hash.utf8)
        guard a.count == b.count else { return false }
        var difference: UInt8 = 0
        for index in 0..<a.count { difference |= a[index] ^ b[index] }
        return difference == 0
    }

    /// Whether `hash` is a bcrypt hash this library verifies: `$2a$`, `$2b$` or `$2y$`, a cost
    /// from 04 to 31, and 53 characters of salt and checksum.
    public static func isValidHash(_ hash: String) -> Bool {
        let bytes = Array(hash.utf8)
        guard bytes.count == 60, bytes[0] == UInt8(ascii: "$"), bytes[1] == UInt8(ascii: "2"),
            [UInt8(ascii: "a"), UInt8(ascii: "b"), UInt8(ascii: "y")].contains(bytes[2]),
            bytes[3] == UInt8(ascii: "$"), bytes[6] == UInt8(ascii: "$"),
            let cost = cost(of: hash), costs.contains(cost)
        else { return false }
        return bytes[7...].allSatisfy { byte in
            byte == UInt8(ascii: ".") || byte == UInt8(ascii: "/") || (byte >= 0x30 && byte <= 0x39)
                || (byte >= 0x41 && byte <= 0x5A) || (byte >= 0x61 && byte <= 0x7A)
        }
    }

    /// The cost written in a bcrypt hash (`$2a$10$...` -> 10).
    public static func cost(of hash: String) -> Int? {
        let bytes = Array(hash.utf8)
        guard bytes.count > 6, (0x30...0x39).contains(bytes[4]), (0x30...0x39).contains(bytes[5]) else { return nil }
        return Int(bytes[4] - 0x30) * 10 + Int(bytes[5] - 0x30)
    }

    private static func check(_ password: String) throws {
        guard password.utf8.count <= maximumLength else {
            throw PasswordError("A password may be at most \(maximumLength) bytes.")
        }
        guard !password.utf8.contains(0) else { throw PasswordError("A password cannot contain a NUL character.") }
    }

    /// `crypt_r` with a heap-allocated, zeroed `crypt_data` (it is 32 KB: too big for a stack
    /// that might be an event loop's). Nil when libcrypt refuses (its failure token starts with `*`).
    private static func crypt(_ password: String, setting: String) -> String? {
        let data = UnsafeMutablePointer<crypt_data>.allocate(capacity: 1)
        defer { data.deallocate() }
        memset(data, 0, MemoryLayout<crypt_data>.size)
        guard let result = crypt_r(password, setting, data) else { return nil }
        let text = String(cString: result)
        return text.hasPrefix("*") ? nil : text
    }
}
