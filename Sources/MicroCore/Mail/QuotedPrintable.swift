/// RFC 2045's quoted-printable, for a message's body: ASCII text stays readable, every other
/// byte is `=XX`, and no line is longer than 76 characters (a longer one is broken with a
/// soft line break, `=` at its end, which a reader joins again).
enum QuotedPrintable {
    /// RFC 2045's limit, the `=` of a soft line break included.
    static let lineLimit = 76

    /// The lines of `text` in quoted-printable, without their line ends. Its lines may end in
    /// LF, CRLF or CR; a line end at the very end of the text ends its last line.
    static func encode(_ text: String) -> [String] {
        var lines = text.utf8.split(omittingEmptySubsequences: false) { $0 == 0x0A }.map { line in
            line.last == 0x0D ? line.dropLast() : line
        }.flatMap { $0.split(separator: 0x0D, omittingEmptySubsequences: false) }
        if lines.count > 1, lines.last?.isEmpty == true { lines.removeLast() }
        return lines.flatMap(encodeLine)
    }

    /// One line of text as one or more lines of quoted-printable.
    private static func encodeLine(_ line: Substring.UTF8View) -> [String] {
        let bytes = Array(line)
        var output: [String] = []
        var current = ""
        for (index, byte) in bytes.enumerated() {
            let isLast = index == bytes.count - 1
            // A space or tab at the end of a line is dropped by some relays: it is encoded there.
            let literal = (byte >= 0x21 && byte <= 0x7E && byte != UInt8(ascii: "=")) || ((byte == 0x20 || byte == 0x09) && !isLast)
            let token = literal ? String(UnicodeScalar(byte)) : "=" + hex(byte)
            // Room for the `=` of a soft line break after it, unless it ends the line.
            if current.utf8.count + token.utf8.count > (isLast ? lineLimit : lineLimit - 1) {
                output.append(current + "=")
                current = ""
            }
            current += token
        }
        output.append(current)
        return output
    }

    private static func hex(_ byte: UInt8) -> String {
        let digits = Array("0123456789ABCDEF")
        return String([digits[Int(byte >> 4)], digits[Int(byte & 0x0F)]])
    }
}
