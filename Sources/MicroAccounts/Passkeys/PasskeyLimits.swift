/// The largest ceremony fields Micro reads, in bytes once decoded, checked on the encoded text
/// before anything is decoded or parsed. Each is well above what an authenticator or browser
/// sends (WebAuthn caps credential ids at 1023 bytes and user handles at 64).
enum PasskeyLimits {
    /// The client data JSON the browser wrote.
    static let clientData = 4096
    /// The authenticator data: a fixed header, the credential and its key at registration,
    /// and extensions.
    static let authenticatorData = 4096
    /// A signature: 512 bytes would be an RSA-4096 one.
    static let signature = 1024
    /// A credential id.
    static let credentialId = 1023
    /// A user handle.
    static let userHandle = 64

    /// The longest unpadded base64url text of `bytes` bytes.
    static func encodedLength(of bytes: Int) -> Int { (bytes * 4 + 2) / 3 }
}
