/// A passkey's signature algorithm, as COSE names it (libfido2's `COSE_ES256`, ... are these
/// same numbers): the three Micro asks authenticators for, in the order it prefers them.
public enum PasskeyAlgorithm: Int32, Sendable, CaseIterable, Codable {
    /// ECDSA with P-256 and SHA-256: what nearly every authenticator makes.
    case es256 = -7
    /// Ed25519.
    case edDsa = -8
    /// RSASSA-PKCS1-v1_5 with SHA-256 and a 2048-bit key: Windows Hello's older keys.
    case rs256 = -257

    /// The COSE algorithm identifier (`pubKeyCredParams[].alg`).
    public var coseIdentifier: Int32 { rawValue }

    /// The length of a key in libfido2's form: P-256's x and y, Ed25519's point, or a 2048-bit
    /// modulus and a 3-byte exponent.
    var keyLength: Int {
        switch self {
        case .es256: 64
        case .edDsa: 32
        case .rs256: 259
        }
    }
}
