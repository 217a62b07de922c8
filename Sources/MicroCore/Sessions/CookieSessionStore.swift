import Crypto
import Foundation

/// Keeps the whole session in the cookie, sealed with AES-GCM under a key derived from the
/// app's secret with HKDF-SHA256: the client can neither read nor change it.
///
/// The cookie value is base64url(nonce ‖ ciphertext ‖ tag); the cookie's name is authenticated
/// too, so a value cannot be moved to another cookie.
public struct CookieSessionStore: SessionStore {
    private let key: SymmetricKey
    private let authenticatedName: Data
    /// The sessions of the cookies opened recently, so that a browser's next request with the
    /// same cookie skips the decryption.
    let opened = OpenedCookieCache()

    /// A store sealing with a key derived from `secret` (at least 32 bytes).
    public init(secret: String, cookieName: String = "micro.session") {
        key = HKDF<SHA256>.deriveKey(
            inputKeyMaterial: SymmetricKey(data: Data(secret.utf8)),
            salt: Data("micro.session.salt".utf8),
            info: Data("micro session cookie v1".utf8),
            outputByteCount: 32)
        authenticatedName = Data(cookieName.utf8)
    }

    public func load(cookieValue: String) -> SessionData? {
        // Anything beyond what a browser keeps is not ours; don't spend work on it.
        // Only the base64url alphabet: a value the decoder would refuse must not find an entry
        // (Strings compare by canonical equivalence: U+212A KELVIN SIGN equals "K").
        guard cookieValue.utf8.count <= 8192, Base64Url.isAlphabet(cookieValue) else { return nil }
        if let data = opened.value(for: cookieValue) { return data }
        guard let sealed = Base64Url.decode(cookieValue),
            let box = try? AES.GCM.SealedBox(combined: sealed),
            let plain = try? AES.GCM.open(box, using: key, authenticating: authenticatedName),
            let data = SessionCodec.decode(Array(plain))
        else { return nil }
        opened.remember(data, for: cookieValue)
        return data
    }

    public func save(_ data: SessionData) throws -> String {
        try seal(SessionCodec.encode(data))
    }

    /// The cookie value holding `plain`, sealed.
    func seal(_ plain: [UInt8]) throws -> String {
        let box = try AES.GCM.seal(plain, using: key, authenticating: authenticatedName)
        guard let combined = box.combined else { throw SessionError("AES-GCM gave no combined box") }
        return Base64Url.encode(combined)
    }

    public func destroy(id: String) {}
}
