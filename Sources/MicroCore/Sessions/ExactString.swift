#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

/// A string that equals another only when their UTF-8 bytes are the same, for keys that
/// identify something: Swift's `String` compares by canonical equivalence ("\u{212A}" KELVIN
/// SIGN equals "K", a precomposed "å" equals "a" and a combining ring), so two usernames a
/// store keeps apart would be one key.
public struct ExactString: Hashable, Sendable {
    /// The string.
    public let text: String

    // Inlinable, as the caches keyed by it are (BoundedCache).
    /// `text`, compared by its bytes.
    @inlinable
    public init(_ text: String) { self.text = text }

    /// Whether the two hold the same UTF-8 bytes.
    @inlinable
    public static func == (lhs: ExactString, rhs: ExactString) -> Bool {
        // Over the bytes' storage: a key is a user's JSON, hundreds of bytes, compared on every
        // look-up, and `UTF8View.elementsEqual` goes byte by byte through its iterator.
        var left = lhs.text
        var right = rhs.text
        return left.withUTF8 { left in
            right.withUTF8 { right in
                guard left.count == right.count else { return false }
                guard let a = left.baseAddress, let b = right.baseAddress else { return true }
                return memcmp(a, b, left.count) == 0
            }
        }
    }

    /// Hashes the UTF-8 bytes.
    @inlinable
    public func hash(into hasher: inout Hasher) {
        var text = text
        text.withUTF8 { hasher.combine(bytes: UnsafeRawBufferPointer($0)) }
    }
}
