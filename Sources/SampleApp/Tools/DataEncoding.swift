import Micro

/// Text to and from Base64, Base64URL, URL percent-encoding, hex and HTML entities.
///
/// Text is taken and given as UTF-8; decodings that produce bytes that are not UTF-8 text are
/// refused with the bytes shown as hex, since a page cannot show them as text.
enum DataEncoding {
    /// What to do with the input.
    enum Operation: String, CaseIterable, Sendable {
        case base64Encode = "base64-encode"
        case base64Decode = "base64-decode"
        case base64UrlEncode = "base64url-encode"
        case base64UrlDecode = "base64url-decode"
        case urlEncode = "url-encode"
        case urlDecode = "url-decode"
        case hexEncode = "hex-encode"
        case hexDecode = "hex-decode"
        case htmlEscape = "html-escape"
        case htmlUnescape = "html-unescape"

        /// The name shown in the picker.
        var label: String {
            switch self {
            case .base64Encode: "Base64 encode"
            case .base64Decode: "Base64 decode"
            case .base64UrlEncode: "Base64URL encode"
            case .base64UrlDecode: "Base64URL decode"
            case .urlEncode: "URL encode"
            case .urlDecode: "URL decode"
            case .hexEncode: "Hex encode"
            case .hexDecode: "Hex decode"
            case .htmlEscape: "HTML escape"
            case .htmlUnescape: "HTML unescape"
            }
        }
    }

    /// `input` encoded or decoded by `operation`.
    static func apply(_ operation: Operation, to input: String) throws(ToolError) -> String {
        try ToolLimits.checkSize(of: input)
        switch operation {
        case .base64Encode: return base64Encode(Array(input.utf8), urlSafe: false)
        case .base64Decode: return try text(from: base64Decode(input, urlSafe: false))
        case .base64UrlEncode: return base64Encode(Array(input.utf8), urlSafe: true)
        case .base64UrlDecode: return try text(from: base64Decode(input, urlSafe: true))
        case .urlEncode: return urlEncode(input)
        case .urlDecode: return try text(from: urlDecode(input))
        case .hexEncode: return hexEncode(Array(input.utf8))
        case .hexDecode: return try text(from: hexDecode(input))
        case .htmlEscape: return Html.escape(input)
        case .htmlUnescape: return htmlUnescape(input)
        }
    }

    // MARK: - Base64

    private static let base64Alphabet = Array("ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789+/".utf8)
    private static let base64UrlAlphabet = Array("ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789-_".utf8)

    /// `bytes` in Base64 (RFC 4648 §4) with padding, or in Base64URL (§5) without it.
    static func base64Encode(_ bytes: [UInt8], urlSafe: Bool) -> String {
        let alphabet = urlSafe ? base64UrlAlphabet : base64Alphabet
        var out: [UInt8] = []
        out.reserveCapacity((bytes.count + 2) / 3 * 4)
        var index = 0
        while index < bytes.count {
            let count = min(3, bytes.count - index)
            var group = UInt32(bytes[index]) << 16
            if count > 1 { group |= UInt32(bytes[index + 1]) << 8 }
            if count > 2 { group |= UInt32(bytes[index + 2]) }
            for sextet in 0...count {
                out.append(alphabet[Int(group >> UInt32(18 - 6 * sextet) & 0x3F)])
            }
            if !urlSafe { out += Array(repeating: UInt8(ascii: "="), count: 3 - count) }
            index += 3
        }
        return String(decoding: out, as: UTF8.self)
    }

    /// The bytes of Base64 (or Base64URL) text; padding optional, whitespace ignored.
    static func base64Decode(_ input: String, urlSafe: Bool) throws(ToolError) -> [UInt8] {
        let name = urlSafe ? "Base64URL" : "Base64"
        var sextets: [UInt8] = []
        sextets.reserveCapacity(input.utf8.count)
        var padding = 0
        for (offset, scalar) in input.unicodeScalars.enumerated() {
            if isSpace(scalar) { continue }
            if scalar == "=" {
                padding += 1
                continue
            }
            guard padding == 0 else {
                throw ToolError(field: "input", message: "Not valid \(name): '=' padding may only come at the end.")
            }
            guard let value = sextet(scalar, urlSafe: urlSafe) else {
                let alphabet = urlSafe ? "A–Z, a–z, 0–9, - and _" : "A–Z, a–z, 0–9, + and /"
                var hint = ""
                if !urlSafe && (scalar == "-" || scalar == "_") {
                    hint = " '-' and '_' are Base64URL: choose Base64URL decode."
                } else if urlSafe && (scalar == "+" || scalar == "/") {
                    hint = " '+' and '/' are standard Base64: choose Base64 decode."
                }
                throw ToolError(
                    field: "input",
                    message: "Not valid \(name): \(describe(scalar)) at position \(offset + 1) is not in its "
                        + "alphabet (\(alphabet)).\(hint)")
            }
            sextets.append(value)
        }
        guard padding <= 2, (sextets.count + padding) % 4 == 0 || padding == 0, sextets.count % 4 != 1 else {
            throw ToolError(field: "input", message: "Not valid \(name): the length is not a multiple of 4.")
        }

        var bytes: [UInt8] = []
        bytes.reserveCapacity(sextets.count * 3 / 4)
        var index = 0
        while index < sextets.count {
            let count = min(4, sextets.count - index)
            var group: UInt32 = 0
            for offset in 0..<4 {
                group = group << 6 | UInt32(offset < count ? sextets[index + offset] : 0)
            }
            // 4 characters carry 3 bytes, 3 carry 2, 2 carry 1; the bits left over are dropped.
            for byte in 0..<(count - 1) {
                bytes.append(UInt8(truncatingIfNeeded: group >> UInt32(16 - 8 * byte)))
            }
            index += 4
        }
        return bytes
    }

    private static func sextet(_ scalar: Unicode.Scalar, urlSafe: Bool) -> UInt8? {
        switch scalar {
        case "A"..."Z": UInt8(scalar.value - 65)
        case "a"..."z": UInt8(scalar.value - 97 + 26)
        case "0"..."9": UInt8(scalar.value - 48 + 52)
        case "+" where !urlSafe, "-" where urlSafe: 62
        case "/" where !urlSafe, "_" where urlSafe: 63
        default: nil
        }
    }

    // MARK: - URL

    /// `input` as UTF-8 with every byte outside RFC 3986's unreserved set written `%XX`.
    static func urlEncode(_ input: String) -> String {
        var out = ""
        out.reserveCapacity(input.utf8.count)
        for byte in input.utf8 {
            switch byte {
            case UInt8(ascii: "A")...UInt8(ascii: "Z"), UInt8(ascii: "a")...UInt8(ascii: "z"),
                UInt8(ascii: "0")...UInt8(ascii: "9"), UInt8(ascii: "-"), UInt8(ascii: "."), UInt8(ascii: "_"),
                UInt8(ascii: "~"):
                out.unicodeScalars.append(Unicode.Scalar(byte))
            default:
                out += "%" + hexDigits(byte, uppercase: true)
            }
        }
        return out
    }

    /// The bytes of percent-encoded text, `+` read as a space as forms send it.
    static func urlDecode(_ input: String) throws(ToolError) -> [UInt8] {
        let scalars = Array(input.unicodeScalars)
        var bytes: [UInt8] = []
        bytes.reserveCapacity(input.utf8.count)
        var index = 0
        while index < scalars.count {
            let scalar = scalars[index]
            switch scalar {
            case "+":
                bytes.append(UInt8(ascii: " "))
            case "%":
                guard index + 2 < scalars.count, let high = nibble(scalars[index + 1]), let low = nibble(scalars[index + 2])
                else {
                    throw ToolError(
                        field: "input",
                        message: "Not valid URL encoding: the '%' at position \(index + 1) is not followed by two "
                            + "hex digits (a literal % is written %25).")
                }
                bytes.append(high << 4 | low)
                index += 2
            default:
                bytes += Array(String(scalar).utf8)
            }
            index += 1
        }
        return bytes
    }

    // MARK: - Hex

    /// `bytes` as lowercase hex, two digits a byte.
    static func hexEncode(_ bytes: some Sequence<UInt8>) -> String {
        bytes.map { hexDigits($0, uppercase: false) }.joined()
    }

    /// The bytes of hex text: either case, whitespace ignored, an optional `0x` prefix.
    static func hexDecode(_ input: String) throws(ToolError) -> [UInt8] {
        let scalars = Array(input.unicodeScalars)
        var start = scalars.firstIndex { !isSpace($0) } ?? scalars.count
        if start + 1 < scalars.count, scalars[start] == "0", scalars[start + 1] == "x" || scalars[start + 1] == "X" {
            start += 2
        }
        var nibbles: [UInt8] = []
        nibbles.reserveCapacity(scalars.count)
        for index in start..<scalars.count {
            let scalar = scalars[index]
            if isSpace(scalar) { continue }
            guard let value = nibble(scalar) else {
                throw ToolError(
                    field: "input",
                    message: "Not valid hex: \(describe(scalar)) at position \(index + 1) is not a hex digit (0–9, a–f).")
            }
            nibbles.append(value)
        }
        guard nibbles.count % 2 == 0 else {
            throw ToolError(
                field: "input",
                message: "Not valid hex: it has \(nibbles.count) digits, an odd number; each byte takes two.")
        }
        return stride(from: 0, to: nibbles.count, by: 2).map { nibbles[$0] << 4 | nibbles[$0 + 1] }
    }

    private static func nibble(_ scalar: Unicode.Scalar) -> UInt8? {
        switch scalar {
        case "0"..."9": UInt8(scalar.value - 48)
        case "a"..."f": UInt8(scalar.value - 97 + 10)
        case "A"..."F": UInt8(scalar.value - 65 + 10)
        default: nil
        }
    }

    private static func hexDigits(_ byte: UInt8, uppercase: Bool) -> String {
        let digits = uppercase ? "0123456789ABCDEF" : "0123456789abcdef"
        let table = Array(digits.unicodeScalars)
        return String(table[Int(byte >> 4)]) + String(table[Int(byte & 0x0F)])
    }

    // MARK: - HTML

    private static let namedEntities: [String: String] = [
        "amp": "&", "lt": "<", "gt": ">", "quot": "\"", "apos": "'", "nbsp": "\u{00A0}",
    ]

    /// `input` with `&amp; &lt; &gt; &quot; &apos; &nbsp;` and numeric entities (`&#39;`, `&#x27;`)
    /// replaced by their characters; other entities are left as they are.
    static func htmlUnescape(_ input: String) -> String {
        let scalars = Array(input.unicodeScalars)
        var out = String.UnicodeScalarView()
        var index = 0
        while index < scalars.count {
            let scalar = scalars[index]
            index += 1
            guard scalar == "&" else {
                out.append(scalar)
                continue
            }
            // The longest entity read here, &#x10FFFF; or &#1114111;, has 8 characters inside.
            let window = scalars[index..<min(scalars.count, index + 9)]
            guard let end = window.firstIndex(of: ";"),
                let replacement = entity(String(String.UnicodeScalarView(scalars[index..<end])))
            else {
                out.append(scalar)
                continue
            }
            out.append(contentsOf: replacement.unicodeScalars)
            index = end + 1
        }
        return String(out)
    }

    /// The text of the entity named `name` (between `&` and `;`), if it is one read here.
    private static func entity(_ name: String) -> String? {
        if let text = namedEntities[name] { return text }
        guard name.hasPrefix("#") else { return nil }
        let number = name.dropFirst()
        let value: UInt32?
        if number.hasPrefix("x") || number.hasPrefix("X") {
            let digits = number.dropFirst()
            value = digits.isEmpty || digits.count > 6 || !digits.allSatisfy(\.isHexDigit) ? nil : UInt32(digits, radix: 16)
        } else {
            value = number.isEmpty || number.count > 7 || !number.allSatisfy { $0.isASCII && $0.isNumber } ? nil : UInt32(number)
        }
        // NUL and surrogates are no characters: leave such entities as they are.
        guard let value, value != 0, let scalar = Unicode.Scalar(value) else { return nil }
        return String(scalar)
    }

    // MARK: - Shared

    /// `bytes` as text, or an error showing them as hex when they are not UTF-8.
    static func text(from bytes: [UInt8]) throws(ToolError) -> String {
        let text = String(decoding: bytes, as: UTF8.self)
        // Decoding replaces bad sequences with U+FFFD, so a changed encoding means bad input.
        guard text.utf8.elementsEqual(bytes) else {
            let shown = bytes.prefix(64).map { hexDigits($0, uppercase: false) }.joined(separator: " ")
            throw ToolError(
                field: "input",
                message: "The decoded bytes are not valid UTF-8 text. As hex (\(bytes.count) bytes): \(shown)"
                    + (bytes.count > 64 ? " …" : ""))
        }
        return text
    }

    private static func isSpace(_ scalar: Unicode.Scalar) -> Bool {
        scalar == " " || scalar == "\t" || scalar == "\n" || scalar == "\r" || scalar == "\u{0B}" || scalar == "\u{0C}"
    }

    /// A character for a message: quoted if printable ASCII, else its code point.
    private static func describe(_ scalar: Unicode.Scalar) -> String {
        if (0x21...0x7E).contains(scalar.value) { return "'\(scalar)'" }
        let digits = String(scalar.value, radix: 16, uppercase: true)
        return "U+" + String(repeating: "0", count: max(0, 4 - digits.count)) + digits
    }
}
