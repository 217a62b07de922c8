/// Reads a server's replies from the bytes it sends, within bounds: a line of at most
/// ``lineLimit`` bytes, a reply of at most ``linesLimit`` lines. Past them, or on a line that
/// is not `CODE text`, it fails, so a server cannot make the client hold more than a reply's
/// worth of its bytes.
struct SmtpReplyParser {
    /// RFC 5321's limit for a reply line, its CRLF included.
    static let lineLimit = 512
    /// More lines than any `EHLO` reply needs.
    static let linesLimit = 100

    private var line: [UInt8] = []
    private var code: Int?
    private var lines: [String] = []

    /// Whether it holds part of a reply: bytes that came before the reply they belong to is complete.
    var isEmpty: Bool { line.isEmpty && lines.isEmpty }

    /// The replies that `bytes` complete, in order, and the failure that ended the reading
    /// when a line broke the rules (the replies before it still count: a server may refuse,
    /// then send nonsense). The bytes after the last reply stay for the next call.
    mutating func parse(_ bytes: some Sequence<UInt8>) -> (replies: [SmtpReply], failure: SmtpFailure?) {
        var replies: [SmtpReply] = []
        for byte in bytes {
            guard byte == UInt8(ascii: "\n") else {
                // The LF that ends the line may follow: room for it.
                guard line.count < Self.lineLimit - 1 else {
                    return (replies, SmtpFailure("the server sent a reply line longer than \(Self.lineLimit) bytes"))
                }
                line.append(byte)
                continue
            }
            if line.last == UInt8(ascii: "\r") { line.removeLast() }
            do {
                if let reply = try take(line) { replies.append(reply) }
            } catch {
                return (replies, error)
            }
            line.removeAll(keepingCapacity: true)
        }
        return (replies, nil)
    }

    /// Adds one line to the reply; the reply, when this line is its last.
    private mutating func take(_ line: [UInt8]) throws(SmtpFailure) -> SmtpReply? {
        let digits = line.prefix(3)
        let separator = line.count > 3 ? line[3] : UInt8(ascii: " ")
        guard digits.count == 3, digits.allSatisfy({ (0x30...0x39).contains($0) }), (0x32...0x35).contains(digits.first!),
            separator == UInt8(ascii: " ") || separator == UInt8(ascii: "-")
        else {
            throw SmtpFailure("the server sent a line that is not a reply: \(Self.quote(line))")
        }
        let lineCode = Int(String(decoding: digits, as: UTF8.self))!
        if let code, code != lineCode {
            throw SmtpFailure("the server began a reply with \(code) and went on with \(lineCode)")
        }
        guard lines.count < Self.linesLimit else {
            throw SmtpFailure("the server sent a reply of more than \(Self.linesLimit) lines")
        }
        code = lineCode
        lines.append(String(decoding: line.dropFirst(4), as: UTF8.self))
        guard separator == UInt8(ascii: " ") else { return nil }
        defer {
            code = nil
            lines = []
        }
        return SmtpReply(code: lineCode, lines: lines)
    }

    /// A line as an error quotes it: its start, control characters escaped.
    private static func quote(_ line: [UInt8]) -> String {
        let text = ControlEscapingLogHandler.escape(String(decoding: line.prefix(80), as: UTF8.self))
        return "'\(text)\(line.count > 80 ? "…" : "")'"
    }
}
