/// The rule for a scope's name: what narrows a credential that carries scopes (an API token),
/// checked by ``MicroCore/Request/requireScope(_:)`` and ``RequestAuthentication/has(scope:)``.
///
/// A name is 1 to ``maximumLength`` bytes of lowercase ASCII letters, digits, `-`, `_` and `:`,
/// beginning with a letter (`read`, `deploy`, `notes:write`): what a form, a log line and a
/// `WWW-Authenticate` header carry as it is, and no two names look alike.
public enum ScopeName {
    /// The scope of a read-only credential: `GET`, `HEAD` and `OPTIONS` requests only.
    public static let read = "read"
    /// The scope that lets a credential change things: any method. It includes ``read``.
    public static let write = "write"
    /// The longest name, in bytes.
    public static let maximumLength = 32

    /// Whether `name` follows the rule.
    public static func isValid(_ name: some StringProtocol) -> Bool {
        let bytes = name.utf8
        guard let first = bytes.first, bytes.count <= maximumLength, first >= UInt8(ascii: "a"), first <= UInt8(ascii: "z") else {
            return false
        }
        return bytes.allSatisfy { byte in
            (byte >= UInt8(ascii: "a") && byte <= UInt8(ascii: "z")) || (byte >= UInt8(ascii: "0") && byte <= UInt8(ascii: "9"))
                || byte == UInt8(ascii: "-") || byte == UInt8(ascii: "_") || byte == UInt8(ascii: ":")
        }
    }
}
