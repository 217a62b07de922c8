@testable import SampleApp

/// A value sent in a field to carry markup into the page, and its harmless twin.
///
/// The twin is the same bytes with each of `& < > " '` replaced by `x`: as long, as valid or
/// invalid UTF-8, so it takes the same path through the tool (a plain `x` would not: it is a
/// valid date pattern where the payload is too long to be one). An encoded payload's twin is
/// the same encoding of the harmless text, so that decoding it also gives harmless text.
struct HostilePayload: Sendable, CustomStringConvertible {
    let name: String
    /// The value's bytes, as they arrive after percent-decoding (not always UTF-8).
    let bytes: [UInt8]
    let twin: [UInt8]

    var description: String { name }

    init(_ name: String, bytes: [UInt8], twin: [UInt8]? = nil) {
        self.name = name
        self.bytes = bytes
        self.twin = twin ?? Self.neutralized(bytes)
    }

    init(_ name: String, _ text: String) {
        self.init(name, bytes: Array(text.utf8))
    }

    /// `bytes` with each of `& < > " '` replaced by `x`.
    static func neutralized(_ bytes: [UInt8]) -> [UInt8] {
        bytes.map { Array("&<>\"'".utf8).contains($0) ? UInt8(ascii: "x") : $0 }
    }

    /// The payload of the report: `"` and `>` each followed by a combining mark, `<` preceded
    /// by a prepend character; a `<meta>` refresh to another site once an escaper lets the
    /// grapheme clusters through.
    static let metaRefresh = "x\"\u{301}>\u{301}\u{600}<meta http-equiv=refresh content=0;url=//evil.example\u{301}>"

    /// As ``metaRefresh``, short enough (64 bytes at most) to be a valid date pattern, which the
    /// date tool remembers.
    static let shortMetaRefresh = "x\"\u{301}>\u{301}\u{600}<meta http-equiv=refresh content=0\u{301}>"

    /// Markup with every character that must be escaped.
    static let plain = "x\"'><meta http-equiv=refresh content=0;url=//evil.example>&amp;"

    /// The family: ``plain`` with each character to escape joined to its neighbours by
    /// combining marks, prepend characters, ZWJ sequences, variation selectors, U+034F, Hangul
    /// jamo and emoji modifiers; invalid UTF-8 around it; and ``metaRefresh`` encoded as each
    /// decoding of the encoding tool reads it.
    static let all: [HostilePayload] = {
        var family = [HostilePayload("meta refresh", metaRefresh), HostilePayload("short meta refresh", shortMetaRefresh), HostilePayload("plain", plain)]
        let after = [
            ("U+0301", "\u{301}"), ("U+0300 U+0301", "\u{300}\u{301}"), ("U+034F", "\u{34F}"), ("U+FE0F", "\u{FE0F}"),
            ("U+FE0E", "\u{FE0E}"), ("U+200D", "\u{200D}"), ("U+1F3FB", "\u{1F3FB}"), ("U+1161", "\u{1161}"),
        ]
        for (name, scalars) in after { family.append(HostilePayload("each followed by \(name)", wrapped(before: "", after: scalars))) }
        let prepend = [
            ("U+0600", "\u{600}"), ("U+0601", "\u{601}"), ("U+0602", "\u{602}"), ("U+0603", "\u{603}"), ("U+0604", "\u{604}"),
            ("U+0605", "\u{605}"), ("U+06DD", "\u{6DD}"), ("U+070F", "\u{70F}"), ("U+08E2", "\u{8E2}"), ("U+110BD", "\u{110BD}"),
        ]
        for (name, scalars) in prepend { family.append(HostilePayload("each preceded by \(name)", wrapped(before: scalars, after: ""))) }
        let around = [
            ("a ZWJ sequence", "\u{1F468}\u{200D}", "\u{200D}\u{1F469}"), ("Hangul jamo", "\u{1100}", "\u{1161}\u{11A8}"),
            ("an emoji with modifier", "\u{1F44B}", "\u{1F3FB}"), ("a prepend and a mark", "\u{600}", "\u{301}"),
        ]
        for (name, before, after) in around { family.append(HostilePayload("each inside \(name)", wrapped(before: before, after: after))) }

        // Invalid UTF-8 (sent percent-encoded): noncharacters, a lone surrogate, an overlong
        // `<`, a lead byte without its continuation after each character to escape.
        family.append(HostilePayload("%FF%FE then markup", bytes: [0xFF, 0xFE] + Array(plain.utf8)))
        family.append(HostilePayload("lone surrogate %ED%A0%80 then markup", bytes: [0xED, 0xA0, 0x80] + Array(metaRefresh.utf8)))
        family.append(HostilePayload("overlong < %C0%BC", bytes: [0x78, 0x22, 0xC0, 0xBC] + Array("meta http-equiv=refresh content=0>".utf8)))
        family.append(HostilePayload("each followed by a lone %CC", bytes: Array(plain.utf8).flatMap { Array("&<>\"'".utf8).contains($0) ? [$0, 0xCC] : [$0] }))

        // Encoded, for the encoding tool's decodings: the result is the markup.
        let harmless = String(decoding: neutralized(Array(metaRefresh.utf8)), as: UTF8.self)
        let encodings: [(String, (String) -> String)] = [
            ("base64", { DataEncoding.base64Encode(Array($0.utf8), urlSafe: false) }),
            ("base64url", { DataEncoding.base64Encode(Array($0.utf8), urlSafe: true) }),
            ("percent-encoded", { DataEncoding.urlEncode($0) }),
            ("hex", { DataEncoding.hexEncode($0.utf8) }),
            ("as entities", { text in text.unicodeScalars.map { "&#x" + String($0.value, radix: 16) + ";" }.joined() }),
        ]
        for (name, encode) in encodings {
            family.append(HostilePayload("meta refresh \(name)", bytes: Array(encode(metaRefresh).utf8), twin: Array(encode(harmless).utf8)))
        }
        return family
    }()

    /// ``plain`` with `before` and `after` around each of `& < > " '`.
    static func wrapped(before: String, after: String) -> String {
        var out = ""
        for scalar in plain.unicodeScalars {
            out += "&<>\"'".unicodeScalars.contains(scalar) ? before + String(scalar) + after : String(scalar)
        }
        return out
    }

    /// `bytes` percent-encoded for a query or form: everything but RFC 3986's unreserved set.
    static func percentEncoded(_ bytes: [UInt8]) -> String {
        let hex = Array("0123456789ABCDEF".utf8)
        var out: [UInt8] = []
        for byte in bytes {
            switch byte {
            case UInt8(ascii: "a")...UInt8(ascii: "z"), UInt8(ascii: "A")...UInt8(ascii: "Z"), UInt8(ascii: "0")...UInt8(ascii: "9"),
                UInt8(ascii: "-"), UInt8(ascii: "."), UInt8(ascii: "_"), UInt8(ascii: "~"):
                out.append(byte)
            default:
                out += [UInt8(ascii: "%"), hex[Int(byte >> 4)], hex[Int(byte & 0x0F)]]
            }
        }
        return String(decoding: out, as: UTF8.self)
    }
}
