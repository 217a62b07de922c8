import Foundation

/// The header fields of a ``MailMessage`` that carry text: written so that nothing in the
/// text can end its field, and folded so that each line is at most 78 characters long.
enum MailHeader {
    /// RFC 5322's line length a line should keep to (RFC 2047 asks 76 of a line with encoded-words).
    static let lineLimit = 76

    /// RFC 5322's date: `Sun, 06 Nov 1994 08:49:37 +0000`, in UTC.
    static func date(_ date: Date) -> String {
        String(HttpDate.format(Int(date.timeIntervalSince1970.rounded(.down))).dropLast(3)) + "+0000"
    }

    /// `From: "Ann Lee" <ann@example.com>`, or the address alone without a name. A name in
    /// printable ASCII is a quoted string; any other, or a long one, is encoded-words.
    static func mailbox(_ field: String, _ address: MailAddress, name: String?) -> String {
        guard let name, !name.isEmpty else { return "\(field): \(address)" }
        let words: [String]
        if isPlainAscii(name), name.utf8.count <= 60 {
            words = ["\"" + name.replacingOccurrences(of: "\\", with: "\\\\").replacingOccurrences(of: "\"", with: "\\\"") + "\""]
        } else {
            words = encodedWords(name, firstLineRoom: lineLimit - field.utf8.count - 2)
        }
        return fold(field, words + ["<\(address)>"])
    }

    /// `Subject: text`: as it is when it is printable ASCII in words that fold; else
    /// encoded-words (which is also how text that looks like an encoded-word is sent).
    static func unstructured(_ field: String, _ text: String) -> String {
        // An encoded-word holds at least one character: an empty subject is the field alone.
        guard !text.isEmpty else { return field + ":" }
        let words = text.split(separator: " ", omittingEmptySubsequences: false)
        if isPlainAscii(text), !text.contains("=?"), words.allSatisfy({ !$0.isEmpty && $0.utf8.count <= 60 }) {
            return fold(field, words.map(String.init))
        }
        return fold(field, encodedWords(text, firstLineRoom: lineLimit - field.utf8.count - 2))
    }

    /// `field: ` and the words with a space between each two, a line break (CRLF and the space)
    /// put before a word that would take its line past ``lineLimit``.
    static func fold(_ field: String, _ words: [String]) -> String {
        var result = field + ":"
        var lineLength = result.utf8.count
        for word in words {
            if lineLength + 1 + word.utf8.count > lineLimit, lineLength > field.utf8.count + 1 {
                result += "\r\n"
                lineLength = 0
            }
            result += " " + word
            lineLength += 1 + word.utf8.count
        }
        return result
    }

    /// `text` as RFC 2047 encoded-words in UTF-8 and base64 (`=?utf-8?B?...?=`), each whole
    /// characters (a decoder may not join a character split between two), the first short enough
    /// to follow the field's name in `firstLineRoom`, the others to fill a folded line each.
    static func encodedWords(_ text: String, firstLineRoom: Int) -> [String] {
        // `=?utf-8?B?` and `?=`, and base64's four characters for each three bytes.
        let overhead = 12
        func capacity(_ room: Int) -> Int { max(1, (room - overhead) / 4) * 3 }
        var words: [String] = []
        var chunk: [UInt8] = []
        var limit = capacity(firstLineRoom)
        for scalar in text.unicodeScalars {
            let bytes = Array(String(scalar).utf8)
            if !chunk.isEmpty, chunk.count + bytes.count > limit {
                words.append(encodedWord(chunk))
                chunk = []
                limit = capacity(lineLimit - 1)
            }
            chunk += bytes
        }
        if !chunk.isEmpty || words.isEmpty { words.append(encodedWord(chunk)) }
        return words
    }

    private static func encodedWord(_ bytes: [UInt8]) -> String {
        "=?utf-8?B?" + Data(bytes).base64EncodedString() + "?="
    }

    /// Printable ASCII and the space: text a header carries as it is.
    private static func isPlainAscii(_ text: String) -> Bool {
        text.utf8.allSatisfy { $0 >= 0x20 && $0 < 0x7F }
    }
}
