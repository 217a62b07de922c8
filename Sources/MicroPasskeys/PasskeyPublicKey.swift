/// A passkey's public key as libfido2 reads it from the authenticator data at registration:
/// the algorithm, and the key's bytes in libfido2's form for it (P-256's x and y, Ed25519's 32
/// bytes, RSA's modulus and exponent). Stored as it is, and given back to libfido2 to check
/// each sign-in's signature.
public struct PasskeyPublicKey: Sendable, Equatable, Codable {
    /// The signature algorithm.
    public let algorithm: PasskeyAlgorithm
    /// The key, in libfido2's form for `algorithm`.
    public let bytes: [UInt8]

    /// A key read back from storage.
    public init(algorithm: PasskeyAlgorithm, bytes: [UInt8]) {
        self.algorithm = algorithm
        self.bytes = bytes
    }
}
