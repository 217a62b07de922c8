import MicroCore

/// A ceremony field as the page sends it, base64url: its length is checked against
/// ``PasskeyLimits`` on the text, before a byte is decoded.
enum PasskeyField {
    /// The bytes of `text`, the field called `name` (for the message), of at most `limit`
    /// bytes decoded.
    static func decode(_ text: String, _ name: String, limit: Int) throws(PasskeyError) -> [UInt8] {
        guard text.utf8.count <= PasskeyLimits.encodedLength(of: limit) else { throw .tooLong(name) }
        guard !text.isEmpty, let bytes = Base64Url.decode(text) else { throw .malformed(name) }
        return bytes
    }
}
