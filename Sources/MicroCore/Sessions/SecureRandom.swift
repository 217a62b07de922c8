import Crypto

/// Random bytes from a cryptographically secure generator: BoringSSL's, through swift-crypto,
/// which draws on the kernel once and not per 8 bytes as `SystemRandomNumberGenerator` does.
/// What every secret Micro makes (session ids, CSRF tokens, API tokens, set-up links) is drawn from.
public enum SecureRandom {
    /// `count` random bytes.
    public static func bytes(_ count: Int) -> [UInt8] {
        guard count > 0 else { return [] }
        return SymmetricKey(size: SymmetricKeySize(bitCount: count * 8)).withUnsafeBytes { Array($0) }
    }
}
