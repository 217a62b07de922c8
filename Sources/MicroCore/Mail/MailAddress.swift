/// An email address a message can be sent to: `local@domain`, in ASCII, as RFC 5321's
/// mailbox without its quoted and address-literal forms.
///
/// The local part is a dot-atom (letters, digits, any of `!#$%&'*+-/=?^_{|}~` and the
/// backquote, dots between them), at most 64 bytes; the domain is dot-separated labels of letters, digits and inner
/// hyphens, at least two of them (or `localhost`, as Django allows), at most 255 bytes; the
/// whole at most 254 bytes. Everything else is refused: spaces, controls (a CR or LF would
/// end an SMTP command or a header early), quotes, angle brackets, a second `@`, and any
/// character outside ASCII (sending those needs the SMTPUTF8 extension, which not every
/// relay has).
///
/// Two addresses are the same address whatever their case (``key``): relays treat the local
/// part case-insensitively in practice, and a person types their address in any case.
public struct MailAddress: Sendable, Hashable, CustomStringConvertible {
    /// The address as it was given.
    public let text: String

    /// The address of `text` (spaces around it are dropped); throws a ``MailAddressError``
    /// saying what is wrong.
    public init(_ text: String) throws(MailAddressError) {
        let trimmed = text.trimmingSpaces()
        guard let problem = Self.problem(with: trimmed) else {
            self.text = trimmed
            return
        }
        throw MailAddressError(problem)
    }

    /// The address in lowercase: what two spellings of one address share.
    public var key: String {
        String(decoding: text.utf8.map { (0x41...0x5A).contains($0) ? $0 + 0x20 : $0 }, as: UTF8.self)
    }

    /// The part after the `@`.
    public var domain: Substring { text[text.index(after: text.lastIndex(of: "@")!)...] }

    public var description: String { text }

    public static func == (lhs: MailAddress, rhs: MailAddress) -> Bool { lhs.key == rhs.key }

    public func hash(into hasher: inout Hasher) { hasher.combine(key) }

    private static let atext = Set("abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789!#$%&'*+-/=?^_`{|}~".utf8)
    private static let labelCharacters = Set("abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789-".utf8)

    private static func problem(with text: String) -> String? {
        let bytes = Array(text.utf8)
        guard !bytes.isEmpty else { return "an email address is needed" }
        guard bytes.count <= 254 else { return "an email address is at most 254 characters" }
        if let byte = bytes.first(where: { $0 < 0x20 || $0 == 0x7F }) {
            return "an email address cannot hold a control character (U+\(String(byte, radix: 16, uppercase: true).leftPadded(to: 4)))"
        }
        guard bytes.allSatisfy({ $0 < 0x80 }) else { return "an email address is written in ASCII letters, digits and punctuation" }
        let parts = bytes.split(separator: UInt8(ascii: "@"), omittingEmptySubsequences: false)
        guard parts.count == 2 else { return "an email address has the form name@domain, with one '@'" }
        let local = parts[0], domain = parts[1]
        guard !local.isEmpty, local.count <= 64 else { return "the part of an email address before '@' is 1 to 64 characters" }
        let atoms = local.split(separator: UInt8(ascii: "."), omittingEmptySubsequences: false)
        guard atoms.allSatisfy({ !$0.isEmpty && $0.allSatisfy(atext.contains) }) else {
            return "the part of an email address before '@' is letters, digits and !#$%&'*+-/=?^_`{|}~, with single dots between them"
        }
        guard !domain.isEmpty, domain.count <= 255 else { return "the domain of an email address is 1 to 255 characters" }
        let labels = domain.split(separator: UInt8(ascii: "."), omittingEmptySubsequences: false)
        let wellFormed = labels.allSatisfy { label in
            (1...63).contains(label.count) && label.allSatisfy(labelCharacters.contains)
                && label.first != UInt8(ascii: "-") && label.last != UInt8(ascii: "-")
        }
        let localhost = labels.count == 1 && labels[0].elementsEqual("localhost".utf8)
        guard wellFormed, labels.count >= 2 || localhost else {
            return "the domain of an email address is a name such as example.com (letters, digits and hyphens, with dots between)"
        }
        return nil
    }
}

extension String {
    fileprivate func leftPadded(to width: Int) -> String {
        String(repeating: "0", count: Swift.max(0, width - count)) + self
    }
}
