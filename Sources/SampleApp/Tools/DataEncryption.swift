import Crypto
import Foundation
import Micro

/// Digests (MD5, SHA-1, SHA-256, SHA-512), HMAC-SHA256 and bcrypt hashes of text.
///
/// bcrypt at cost 14 takes a second or more: a server calls this off its event loop.
enum DataEncryption {
    /// What to compute from the input.
    enum Operation: String, CaseIterable, Sendable {
        case md5, sha1, sha256, sha512
        case hmacSha256 = "hmac-sha256"
        case bcrypt
        case bcryptVerify = "bcrypt-verify"

        /// The name shown in the picker.
        var label: String {
            switch self {
            case .md5: "MD5"
            case .sha1: "SHA-1"
            case .sha256: "SHA-256"
            case .sha512: "SHA-512"
            case .hmacSha256: "HMAC-SHA256"
            case .bcrypt: "bcrypt hash"
            case .bcryptVerify: "bcrypt verify"
            }
        }
    }

    /// The bcrypt costs offered: below 4 libcrypt refuses; above 14 a request takes too long.
    static let costs = 4...14
    /// The cost used when none is given.
    static let defaultCost = Password.defaultCost
    /// bcrypt reads this many bytes of a password and ignores the rest.
    static let bcryptMaximumBytes = 72

    /// The result of `operation` on `input`: a lowercase hex digest, a bcrypt hash, or "Match" /
    /// "No match" for bcrypt-verify. `key` is HMAC's, `hash` and `cost` bcrypt's.
    static func apply(_ operation: Operation, input: String, key: String?, hash: String?, cost: Int?) throws(ToolError) -> String {
        try ToolLimits.checkSize(of: input)
        let data = Array(input.utf8)
        switch operation {
        case .md5: return DataEncoding.hexEncode(Insecure.MD5.hash(data: data))
        case .sha1: return DataEncoding.hexEncode(Insecure.SHA1.hash(data: data))
        case .sha256: return DataEncoding.hexEncode(SHA256.hash(data: data))
        case .sha512: return DataEncoding.hexEncode(SHA512.hash(data: data))
        case .hmacSha256:
            // A form sends an empty field for a key left blank; HMAC with an empty key is no tool.
            guard let key, !key.isEmpty else {
                throw ToolError(field: "key", message: "HMAC-SHA256 needs a key: enter the secret to sign with.")
            }
            try ToolLimits.checkSize(of: key, field: "key")
            return hmacSha256(data, key: Array(key.utf8))
        case .bcrypt:
            let cost = cost ?? defaultCost
            guard costs.contains(cost) else {
                throw ToolError(
                    field: "cost",
                    message: "The bcrypt cost must be from \(costs.lowerBound) to \(costs.upperBound), not \(cost).")
            }
            try checkBcryptInput(input)
            do {
                return try Password.hash(input, cost: cost)
            } catch {
                throw ToolError(field: "input", message: "bcrypt could not hash this input: \(error).")
            }
        case .bcryptVerify:
            let hash = (hash ?? "").trimmingCharacters(in: .whitespacesAndNewlines)
            guard !hash.isEmpty else {
                throw ToolError(field: "hash", message: "Enter the bcrypt hash to check the input against.")
            }
            guard Password.isValidHash(hash) else {
                throw ToolError(
                    field: "hash",
                    message: "Not a bcrypt hash: expected 60 characters such as $2b$10$ followed by 53 characters "
                        + "of salt and checksum ($2a$ and $2y$ hashes are read too).")
            }
            // A cost above the offered range would hold a hashing thread for minutes.
            guard let hashCost = Password.cost(of: hash), costs.contains(hashCost) else {
                throw ToolError(field: "hash", message: "This tool checks hashes of cost \(costs.lowerBound) to \(costs.upperBound); this one has cost \(Password.cost(of: hash) ?? 0).")
            }
            try checkBcryptInput(input)
            return Password.verify(input, against: hash) ? "Match" : "No match"
        }
    }

    /// The lowercase hex HMAC-SHA256 of `data` under `key`.
    static func hmacSha256(_ data: [UInt8], key: [UInt8]) -> String {
        DataEncoding.hexEncode(HMAC<SHA256>.authenticationCode(for: data, using: SymmetricKey(data: key)))
    }

    /// An error on "input" for text bcrypt cannot take whole.
    private static func checkBcryptInput(_ input: String) throws(ToolError) {
        let size = input.utf8.count
        guard size <= bcryptMaximumBytes else {
            throw ToolError(
                field: "input",
                message: "bcrypt reads only the first \(bcryptMaximumBytes) bytes of its input and this is \(size) "
                    + "bytes: the rest would be ignored. Use a shorter input.")
        }
        guard !input.utf8.contains(0) else {
            throw ToolError(field: "input", message: "bcrypt cannot take a NUL character: it ends its input there.")
        }
    }
}
