import Foundation

/// `MICRO_SMTP_URL` taken apart: `smtp+starttls://LOGIN:PASSWORD@HOST:PORT`, the login and
/// password percent-decoded. What it says of a mistake quotes the part at fault and never the
/// password.
struct SmtpUrl: Equatable {
    var security: SmtpSecurity
    var host: String
    var port: Int
    var login: String?
    var password: String?

    /// The parts of `text`; throws what is wrong, as the rest of a sentence that starts with the
    /// variable's name.
    init(_ text: String) throws(ConfigurationError) {
        let example = "such as smtp+starttls://mail.example.com:587"
        guard let schemeEnd = text.range(of: "://") else {
            throw ConfigurationError("MICRO_SMTP_URL is not a URL; expected smtp://, smtp+starttls:// or smtps:// and a host, \(example).")
        }
        let scheme = text[..<schemeEnd.lowerBound].lowercased()
        guard let security = SmtpSecurity(rawValue: scheme) else {
            throw ConfigurationError("MICRO_SMTP_URL has the scheme '\(ControlEscapingLogHandler.escape(scheme))'; expected smtp://, smtp+starttls:// or smtps://, \(example).")
        }
        self.security = security
        var authority = text[schemeEnd.upperBound...]
        if authority.hasSuffix("/") { authority.removeLast() }
        if authority.contains(where: { "/?#".contains($0) }) {
            throw ConfigurationError("MICRO_SMTP_URL has a path, query or fragment; expected only a host and port, \(example).")
        }
        // The last `@`: a password with an `@` that was not percent-encoded still parses.
        if let at = authority.lastIndex(of: "@") {
            let credentials = authority[..<at]
            authority = authority[authority.index(after: at)...]
            let colon = credentials.firstIndex(of: ":")
            guard let login = Self.decoded(credentials[..<(colon ?? credentials.endIndex)]), !login.isEmpty else {
                throw ConfigurationError("MICRO_SMTP_URL has a login that is empty or badly percent-encoded (%XX).")
            }
            self.login = login
            if let colon {
                guard let password = Self.decoded(credentials[credentials.index(after: colon)...]) else {
                    throw ConfigurationError("MICRO_SMTP_URL has a password that is badly percent-encoded (%XX).")
                }
                self.password = password.isEmpty ? nil : password
            }
        }
        let portText: Substring?
        if authority.hasPrefix("[") {
            guard let close = authority.firstIndex(of: "]") else {
                throw ConfigurationError("MICRO_SMTP_URL has an IPv6 address without its closing ']'.")
            }
            host = String(authority[authority.index(after: authority.startIndex)..<close])
            let rest = authority[authority.index(after: close)...]
            guard rest.isEmpty || rest.hasPrefix(":") else {
                throw ConfigurationError("MICRO_SMTP_URL has '\(ControlEscapingLogHandler.escape(String(rest)))' after its IPv6 address; expected :PORT.")
            }
            portText = rest.isEmpty ? nil : rest.dropFirst()
        } else if let colon = authority.lastIndex(of: ":") {
            host = String(authority[..<colon])
            portText = authority[authority.index(after: colon)...]
        } else {
            host = String(authority)
            portText = nil
        }
        if let problem = Self.hostProblem(host) { throw ConfigurationError("MICRO_SMTP_URL: \(problem), \(example).") }
        if let portText {
            guard let port = Int(portText), (1...65535).contains(port) else {
                throw ConfigurationError("MICRO_SMTP_URL has the port '\(ControlEscapingLogHandler.escape(String(portText)))'; expected a number from 1 to 65535.")
            }
            self.port = port
        } else {
            port = security.defaultPort
        }
    }

    /// Why `host` is not a host name or IP address; nil when it is one.
    static func hostProblem(_ host: String) -> String? {
        if host.isEmpty { return "the host is missing" }
        if IpAddress(host) != nil { return nil }
        let allowed = Set("abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789-.".utf8)
        let labels = host.split(separator: ".", omittingEmptySubsequences: false)
        let wellFormed = host.utf8.allSatisfy(allowed.contains) && host.utf8.count <= 253
            && labels.allSatisfy { (1...63).contains($0.utf8.count) && !$0.hasPrefix("-") && !$0.hasSuffix("-") }
        return wellFormed ? nil : "the host '\(ControlEscapingLogHandler.escape(host))' is not a host name or IP address"
    }

    /// `text` percent-decoded; nil when a `%` is not followed by two hex digits.
    private static func decoded(_ text: Substring) -> String? {
        text.contains("%") ? String(text).removingPercentEncoding : String(text)
    }
}
