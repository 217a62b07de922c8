/// The largest ceremony fields Micro reads, in bytes once decoded, checked on the encoded text
/// before anything is decoded or parsed. Each is well above what an authenticator or browser
/// sends (WebAuthn caps credential ids at 1023 bytes and user handles at 64).
enum PasskeyLimits {
    /// The client data JSON the browser wrote.
    static let clientData = 4096
    /// A registration's authenticator data: a fixed header, the credential and its key, and
    /// extensions.
    static let registrationData = 4096
    /// A sign-in's authenticator data: the header and extensions. libfido2 builds the message
    /// an EdDSA signature covers in a buffer of 1024 bytes, with the client data's hash.
    static let assertionData = 512
    /// A signature: 512 bytes would be an RSA-4096 one.
    static let signature = 1024
    /// A credential id.
    static let credentialId = 1023
    /// A user handle.
    static let userHandle = 64
    /// The address a passkey was added from, as kept: an IPv6 address with its zone fits.
    static let addedFromAddress = 128
    /// The `User-Agent` a passkey was added from, as kept: as much as the sessions page keeps.
    static let addedFromUserAgent = 512

    /// The longest unpadded base64url text of `bytes` bytes.
    static func encodedLength(of bytes: Int) -> Int { (bytes * 4 + 2) / 3 }
}
