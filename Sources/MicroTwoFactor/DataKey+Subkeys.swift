import Crypto
import Foundation
import MicroAuth
import MicroCore

extension DataKey {
    /// A key of its own for `purpose`, derived from this one: a digest made with it says
    /// nothing of the sealing key, and one use's values are no use in another.
    func subkey(_ purpose: String) -> SymmetricKey {
        HKDF<SHA256>.deriveKey(inputKeyMaterial: key, info: Data("micro data key subkey \(purpose)".utf8), outputByteCount: 32)
    }

    /// What the database keeps to know this key again (``DataKeyCheck``): an HMAC under a
    /// subkey of its own, which opens nothing and from which the key cannot be found.
    var checkValue: String {
        Base64Url.encode(Array(HMAC<SHA256>.authenticationCode(for: Data("micro data key check".utf8), using: subkey("check"))))
    }

    /// `bytes` keyed under the recovery codes' subkey, in base64url.
    func recoveryCodeDigest(_ bytes: [UInt8]) -> String {
        Base64Url.encode(Array(HMAC<SHA256>.authenticationCode(for: bytes, using: subkey("recovery codes"))))
    }
}
