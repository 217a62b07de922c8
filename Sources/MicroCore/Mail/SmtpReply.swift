/// A server's reply: its three-digit code and the text of each of its lines (`250-first`,
/// `250 last`), as RFC 5321 writes them.
struct SmtpReply: Sendable, Equatable {
    /// 220, 250, 354, 535, ...
    let code: Int
    /// Each line's text after the code and its `-` or space.
    let lines: [String]

    /// 2xx: done.
    var isCompletion: Bool { (200..<300).contains(code) }

    /// The reply as an error quotes it: `550 5.1.1 no such mailbox`, lines joined with ` / `,
    /// control characters escaped, at most a few hundred characters.
    var quoted: String {
        let texts = lines.filter { !$0.isEmpty }
        let escaped = ControlEscapingLogHandler.escape(texts.isEmpty ? String(code) : "\(code) " + texts.joined(separator: " / "))
        return escaped.count > 300 ? String(escaped.prefix(300)) + "…" : escaped
    }

    /// The extensions an `EHLO` reply offers, by keyword in uppercase, each with its
    /// parameters (`AUTH` → `PLAIN`, `LOGIN`); the first line is the server's greeting.
    var extensions: [String: [String]] {
        var offered: [String: [String]] = [:]
        for line in lines.dropFirst() {
            // Old servers wrote `AUTH=PLAIN LOGIN`.
            let words = line.split(whereSeparator: { $0 == " " || $0 == "=" }).map { $0.uppercased() }
            guard let keyword = words.first else { continue }
            offered[keyword, default: []] += words.dropFirst()
        }
        return offered
    }
}
