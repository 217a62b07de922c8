import Foundation

/// The username and password of an `Authorization: Basic` header (RFC 7617), read as UTF-8.
package struct BasicCredentials: Sendable, Equatable {
    package let username: String
    package let password: String

    init(username: String, password: String) {
        self.username = username
        self.password = password
    }

    /// The credentials of `header`; nil when it is not Basic, not base64, not UTF-8, or has
    /// no colon between the name and the password.
    package init?(header: String) {
        let parts = header.split(separator: " ", maxSplits: 1, omittingEmptySubsequences: true)
        guard parts.count == 2, parts[0].lowercased() == "basic",
            let decoded = Data(base64Encoded: String(parts[1]).trimmingCharacters(in: .whitespaces)),
            let text = String(validating: decoded, as: UTF8.self),
            let colon = text.firstIndex(of: ":")
        else { return nil }
        username = String(text[..<colon])
        password = String(text[text.index(after: colon)...])
    }
}
