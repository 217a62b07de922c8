import Crypto
import Foundation

/// CSRF protection: a random secret per session, and tokens that prove a form came from the
/// app's own pages.
///
/// Each token is the secret masked with a fresh random pad (pad ‖ pad⊕secret), so pages
/// never repeat a token (no BREACH-style leak through compression); the secret is random and
/// unrelated to the session key. Tokens are compared in constant time.
enum CsrfToken {
    static let sessionKey = "_csrf"
    static let fieldName = "_csrf"
    static let headerName = "X-CSRF-Token"
    private static let size = 32

    /// A fresh token for the session (creating its secret on first use).
    static func token(for session: Session) -> String {
        let secret = secret(of: session)
        let pad = SecureRandom.bytes(size)
        return Base64Url.encode(pad + zip(pad, secret).map { $0 ^ $1 })
    }

    /// Whether `token` was made for the session. Constant-time in the token's content.
    static func isValid(_ token: String, for session: Session) -> Bool {
        guard let stored = session.get(sessionKey, as: String.self), let secret = Base64Url.decode(stored),
            secret.count == size, let bytes = Base64Url.decode(token), bytes.count == 2 * size
        else { return false }
        let pad = bytes.prefix(size)
        let masked = bytes.suffix(size)
        let unmasked = zip(pad, masked).map { $0 ^ $1 }
        var difference: UInt8 = 0
        for (a, b) in zip(unmasked, secret) { difference |= a ^ b }
        return difference == 0
    }

    private static func secret(of session: Session) -> [UInt8] {
        if let stored = session.get(sessionKey, as: String.self), let secret = Base64Url.decode(stored), secret.count == size {
            return Array(secret)
        }
        let secret = SecureRandom.bytes(size)
        try? session.set(sessionKey, Base64Url.encode(secret))
        return secret
    }
}
