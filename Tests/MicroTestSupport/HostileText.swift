/// Text that tries to carry markup past an escaper that looks at grapheme clusters: each of
/// `& < > " '` joined to its neighbours into one Character, so that the cluster is not equal
/// to the bare character.
package enum HostileText {
    /// The payload of the report: `"` and `>` each followed by a combining mark (one cluster
    /// each), `<` preceded by a prepend character (one cluster): a real `<meta>` element once
    /// an escaper lets the clusters through.
    package static let metaRefresh = "x\"\u{301}>\u{301}\u{600}<meta http-equiv=refresh content=0;url=//evil.example\u{301}>"

    /// Markup with every character that must be escaped.
    package static let plain = "x\"'><meta http-equiv=refresh content=0;url=//evil.example>&amp;"

    /// Scalars that join to the character before them: combining marks (one and two), the
    /// combining grapheme joiner, variation selectors, the zero-width joiner, an emoji
    /// modifier, Hangul vowel and final jamo.
    private static let joinAfter: [(name: String, scalars: String)] = [
        ("U+0301", "\u{301}"), ("U+0300 U+0301", "\u{300}\u{301}"), ("U+034F", "\u{34F}"),
        ("U+FE0F", "\u{FE0F}"), ("U+FE0E", "\u{FE0E}"), ("U+200D", "\u{200D}"),
        ("U+1F3FB", "\u{1F3FB}"), ("U+1161", "\u{1161}"), ("U+11A8", "\u{11A8}"),
    ]

    /// Prepend characters (Grapheme_Cluster_Break=Prepend): they join to the character after.
    private static let joinBefore: [(name: String, scalars: String)] = [
        ("U+0600", "\u{600}"), ("U+0601", "\u{601}"), ("U+0602", "\u{602}"), ("U+0603", "\u{603}"),
        ("U+0604", "\u{604}"), ("U+0605", "\u{605}"), ("U+06DD", "\u{6DD}"), ("U+070F", "\u{70F}"),
        ("U+08E2", "\u{8E2}"), ("U+110BD", "\u{110BD}"),
    ]

    /// Scalars on both sides: a ZWJ emoji sequence, a Hangul syllable in jamo, an emoji with
    /// its skin tone, a prepend character and a combining mark.
    private static let joinAround: [(name: String, before: String, after: String)] = [
        ("a ZWJ sequence", "\u{1F468}\u{200D}", "\u{200D}\u{1F469}"),
        ("Hangul jamo", "\u{1100}", "\u{1161}\u{11A8}"),
        ("an emoji and its modifier", "\u{1F44B}", "\u{1F3FB}"),
        ("a prepend character and a mark", "\u{600}", "\u{301}"),
        ("variation selectors", "\u{FE0E}", "\u{FE0F}"),
    ]

    /// The whole family, named: `plain` with each character to escape wrapped by each of the
    /// joiners above, plus ``metaRefresh`` and ``plain`` itself.
    package static let all: [(name: String, text: String)] = {
        var family: [(name: String, text: String)] = [("meta refresh", metaRefresh), ("plain", plain)]
        for join in joinAfter { family.append(("each followed by \(join.name)", wrapped(plain, before: "", after: join.scalars))) }
        for join in joinBefore { family.append(("each preceded by \(join.name)", wrapped(plain, before: join.scalars, after: ""))) }
        for join in joinAround { family.append(("each inside \(join.name)", wrapped(plain, before: join.before, after: join.after))) }
        return family
    }()

    /// `text` with `before` and `after` around each of `& < > " '`.
    package static func wrapped(_ text: String, before: String, after: String) -> String {
        var out = ""
        for scalar in text.unicodeScalars {
            if "&<>\"'".unicodeScalars.contains(scalar) {
                out += before + String(scalar) + after
            } else {
                out.unicodeScalars.append(scalar)
            }
        }
        return out
    }

    /// The byte-wise reference: each byte of `& < > " '` replaced by its entity, every other
    /// byte kept.
    package static func referenceEscape(_ text: String) -> String {
        var out: [UInt8] = []
        for byte in text.utf8 {
            switch byte {
            case UInt8(ascii: "&"): out += Array("&amp;".utf8)
            case UInt8(ascii: "<"): out += Array("&lt;".utf8)
            case UInt8(ascii: ">"): out += Array("&gt;".utf8)
            case UInt8(ascii: "\""): out += Array("&quot;".utf8)
            case UInt8(ascii: "'"): out += Array("&#39;".utf8)
            default: out.append(byte)
            }
        }
        return String(decoding: out, as: UTF8.self)
    }

    /// The five entities turned back into their characters, byte by byte.
    package static func unescape(_ text: String) -> [UInt8] {
        let entities: [(String, UInt8)] = [("&amp;", 38), ("&lt;", 60), ("&gt;", 62), ("&quot;", 34), ("&#39;", 39)]
        let bytes = Array(text.utf8)
        var out: [UInt8] = []
        var index = 0
        outer: while index < bytes.count {
            if bytes[index] == UInt8(ascii: "&") {
                for (entity, byte) in entities where bytes[index...].starts(with: entity.utf8) {
                    out.append(byte)
                    index += entity.utf8.count
                    continue outer
                }
            }
            out.append(bytes[index])
            index += 1
        }
        return out
    }

    /// Whether `text` holds a byte of `< > " '` (an `&` may start an entity).
    package static func holdsMarkup(_ text: String) -> Bool {
        text.utf8.contains { $0 == UInt8(ascii: "<") || $0 == UInt8(ascii: ">") || $0 == UInt8(ascii: "\"") || $0 == UInt8(ascii: "'") }
    }
}
