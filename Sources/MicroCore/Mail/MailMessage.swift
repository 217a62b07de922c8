import Foundation

/// A plain-text message from one address to another, rendered as RFC 5322 text with its
/// MIME headers (UTF-8, quoted-printable).
///
/// ```swift
/// let message = MailMessage(
///     from: try MailAddress("tools@example.com"), fromName: "Lab Tools",
///     to: try MailAddress("ann@example.com"), toName: "Ann Lee",
///     subject: "Set your password", body: "Open this link within an hour: \(link)")
/// ```
///
/// Whatever the names and the subject hold, they stay inside their own header: a control
/// character (a CR or LF would start a new header, `Bcc:` say) becomes a space, and text
/// outside ASCII is sent as RFC 2047 encoded-words.
public struct MailMessage: Sendable, Equatable {
    /// The sender, in `From` and in SMTP's `MAIL FROM`.
    public var from: MailAddress
    /// The sender's display name (`Lab Tools`); nil for the address alone.
    public var fromName: String? { didSet { fromName = fromName.map(Self.headerText) } }
    /// The recipient, in `To` and in SMTP's `RCPT TO`.
    public var to: MailAddress
    /// The recipient's display name; nil for the address alone.
    public var toName: String? { didSet { toName = toName.map(Self.headerText) } }
    /// The subject, one line.
    public var subject: String { didSet { subject = Self.headerText(subject) } }
    /// The text, in lines ended by LF, CRLF or CR (sent as CRLF).
    public var body: String
    /// When it was written (`Date`).
    public var date: Date
    /// Its `Message-ID` without the angle brackets: random hex `@` the sender's domain.
    public var messageId: String

    /// A message written now, with a new random `Message-ID`. Control characters in the names
    /// and the subject become spaces (one for a run of them), and spaces around them are dropped.
    public init(
        from: MailAddress, fromName: String? = nil, to: MailAddress, toName: String? = nil, subject: String, body: String,
        date: Date = Date()
    ) {
        self.from = from
        self.fromName = fromName.map(Self.headerText)
        self.to = to
        self.toName = toName.map(Self.headerText)
        self.subject = Self.headerText(subject)
        self.body = body
        self.date = date
        messageId = SecureRandom.bytes(16).map { String(format: "%02x", $0) }.joined() + "@" + from.domain
    }

    /// The message as it goes over the wire: the headers, an empty line and the body in
    /// quoted-printable, each line ended by CRLF and at most 78 characters long (a line with a
    /// long address or domain alone may be longer, within SMTP's 998).
    public var rendered: String {
        var lines = [
            "Date: " + MailHeader.date(date),
            "Message-ID: <\(messageId)>",
            MailHeader.mailbox("From", from, name: fromName),
            MailHeader.mailbox("To", to, name: toName),
            MailHeader.unstructured("Subject", subject),
            "MIME-Version: 1.0",
            "Content-Type: text/plain; charset=utf-8",
            "Content-Transfer-Encoding: quoted-printable",
            "",
        ]
        lines.append(contentsOf: QuotedPrintable.encode(body))
        return lines.map { $0 + "\r\n" }.joined()
    }

    /// `text` with each run of control characters (C0, DEL, C1, and the line and paragraph
    /// separators) made one space, and without spaces at either end: one line of a header.
    static func headerText(_ text: String) -> String {
        var scalars = String.UnicodeScalarView()
        var inRun = false
        for scalar in text.unicodeScalars {
            let isControl = scalar.value < 0x20 || (0x7F...0x9F).contains(scalar.value) || scalar == "\u{2028}" || scalar == "\u{2029}"
            if isControl {
                if !inRun { scalars.append(" ") }
                inRun = true
            } else {
                scalars.append(scalar)
                inRun = false
            }
        }
        return String(scalars).trimmingSpaces()
    }
}
