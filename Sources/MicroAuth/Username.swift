import Foundation
import MicroCore

/// The rule every username follows, in every store and at sign-in: RFC 8265's
/// UsernameCaseMapped profile (PRECIS). Fullwidth and halfwidth forms become their plain
/// forms, letters are lowercased (Unicode's toLowerCase), the result is NFC, and what is left
/// must be letters, digits and printable ASCII (RFC 8264's IdentifierClass). So `ÉMILE`,
/// `émile` and `e`+U+0301+`mile` are one user and `ＫＡＴＥ` is `kate`, while a name with a
/// space, a control, a symbol, a compatibility character (the Kelvin sign `K`) or an
/// unassigned code point is refused, as is `:` (HTTP Basic cannot send it) and the empty name.
///
/// ```swift
/// try Username.enforce("ÉMILE")   // "émile"
/// try Username.enforce("\u{212A}ate")  // throws: U+212A KELVIN SIGN is a compatibility form of 'K'
/// ```
public enum Username {
    /// The enforced form of `text`: the name a store keeps and a sign-in looks up.
    public static func enforce(_ text: String) throws(UsernameError) -> String {
        guard !text.isEmpty else { throw .empty }
        // Most names are printable ASCII, whose enforced form is their ASCII lowercase: stamps
        // are made for every user at each reading of a table.
        if text.utf8.allSatisfy({ (0x21...0x7E).contains($0) && $0 != 0x3A }) {
            return String(decoding: text.utf8.map { (0x41...0x5A).contains($0) ? $0 + 0x20 : $0 }, as: UTF8.self)
        }
        let prepared = widthMapped(text)
        for scalar in prepared.unicodeScalars { try check(scalar, of: text) }
        let enforced = lowercased(prepared).precomposedStringWithCanonicalMapping
        // Lowercasing can bring in code points of its own (İ gives i and a combining dot).
        for scalar in enforced.unicodeScalars { try check(scalar, of: text) }
        guard UsernameDirection.isAllowed(enforced) else { throw .direction(text) }
        return enforced
    }

    /// Whether `text` is a username in its enforced form: what a store holds.
    public static func isEnforced(_ text: String) -> Bool {
        (try? enforce(text)) == text
    }

    /// The enforced form of `text`, or `text` itself when the rule refuses it: a key for
    /// memory (stamps, revocations) under which a refused name never meets a user's, since
    /// every enforced name is its own enforced form. (Folding it, as `lowercased()` would,
    /// could make the Kelvin sign's `Kate` into `kate`.)
    public static func key(_ text: String) -> String {
        (try? enforce(text)) ?? text
    }

    /// RFC 8265's width mapping: fullwidth and halfwidth forms (the U+FF00 block) to their
    /// decompositions. Nothing else is compatibility-mapped: the class check refuses the rest.
    static func widthMapped(_ text: String) -> String {
        guard text.unicodeScalars.contains(where: { (0xFF00...0xFFEF).contains($0.value) }) else { return text }
        var mapped = String.UnicodeScalarView()
        for scalar in text.unicodeScalars {
            if (0xFF00...0xFFEF).contains(scalar.value) {
                mapped.append(contentsOf: String(scalar).precomposedStringWithCompatibilityMapping.unicodeScalars)
            } else {
                mapped.append(scalar)
            }
        }
        return String(mapped)
    }

    /// Unicode's toLowerCase, with the Final_Sigma context that `String.lowercased()` leaves
    /// out, so that `ΟΔΟΣ` is `οδος`, as RFC 8265 asks.
    static func lowercased(_ text: String) -> String {
        let scalars = Array(text.unicodeScalars)
        guard scalars.contains("\u{3A3}") else { return text.lowercased() }
        var lowered = String.UnicodeScalarView()
        for (index, scalar) in scalars.enumerated() {
            if scalar == "\u{3A3}", isFinalSigma(at: index, in: scalars) {
                lowered.append("\u{3C2}")
            } else {
                lowered.append(contentsOf: scalar.properties.lowercaseMapping.unicodeScalars)
            }
        }
        return String(lowered)
    }

    /// Unicode's Final_Sigma: a cased letter before it and none after it, case-ignorable
    /// code points (accents, apostrophes) aside.
    private static func isFinalSigma(at index: Int, in scalars: [Unicode.Scalar]) -> Bool {
        var before = index - 1
        while before >= 0, scalars[before].properties.isCaseIgnorable { before -= 1 }
        guard before >= 0, scalars[before].properties.isCased else { return false }
        var after = index + 1
        while after < scalars.count, scalars[after].properties.isCaseIgnorable { after += 1 }
        return after == scalars.count || !scalars[after].properties.isCased
    }

    /// RFC 8264's IdentifierClass, derived as its section 9 does; the contextual rules
    /// (CONTEXTJ, CONTEXTO) count as refusals.
    private static func check(_ scalar: Unicode.Scalar, of name: String) throws(UsernameError) {
        let value = scalar.value
        if value == 0x3A { throw .colon(name) }
        if (0x21...0x7E).contains(value) { return }
        if value < 0x20 || value == 0x7F { throw .control(name, scalar) }
        if value == 0x20 { throw .space(name, scalar) }
        if exceptionsAllowed.contains(value) { return }
        if exceptionsRefused.contains(value) { throw .notIdentifier(name, scalar) }
        let properties = scalar.properties
        let category = properties.generalCategory
        if category == .unassigned, !properties.isNoncharacterCodePoint { throw .unassigned(name, scalar) }
        if properties.isJoinControl || properties.isDefaultIgnorableCodePoint || properties.isNoncharacterCodePoint {
            throw .invisible(name, scalar)
        }
        if isOldHangulJamo(value) { throw .notIdentifier(name, scalar) }
        if category == .control { throw .control(name, scalar) }
        if category == .spaceSeparator { throw .space(name, scalar) }
        if String(scalar).precomposedStringWithCompatibilityMapping.unicodeScalars.elementsEqual([scalar]) == false {
            throw .compatibility(name, scalar)
        }
        switch category {
        case .lowercaseLetter, .uppercaseLetter, .otherLetter, .decimalNumber, .modifierLetter, .nonspacingMark, .spacingMark:
            return
        default:
            throw .notIdentifier(name, scalar)
        }
    }

    /// RFC 8264 section 9.1's exceptions: always allowed (ß, final sigma, ...)...
    private static let exceptionsAllowed: Set<UInt32> = [0xDF, 0x3C2, 0x6FD, 0x6FE, 0xF0B, 0x3007]
    /// ...and refused, the contextual ones (middle dot, Greek keraia, ...) among them.
    private static let exceptionsRefused: Set<UInt32> = [
        0xB7, 0x375, 0x5F3, 0x5F4, 0x30FB,
        0x640, 0x7FA, 0x302E, 0x302F, 0x3031, 0x3032, 0x3033, 0x3034, 0x3035, 0x303B,
    ]

    /// Hangul_Syllable_Type L, V or T: conjoining jamo, which Swift's properties do not name.
    private static func isOldHangulJamo(_ value: UInt32) -> Bool {
        (0x1100...0x11FF).contains(value) || (0xA960...0xA97C).contains(value)
            || (0xD7B0...0xD7C6).contains(value) || (0xD7CB...0xD7FB).contains(value)
    }

    /// `U+212A KELVIN SIGN`, or `U+001B` for a code point without a name.
    static func codePoint(_ scalar: Unicode.Scalar) -> String {
        let hex = String(scalar.value, radix: 16, uppercase: true)
        let code = "U+" + String(repeating: "0", count: max(0, 4 - hex.count)) + hex
        return scalar.properties.name.map { "\(code) \($0)" } ?? code
    }

    /// `text` safe to print: controls, invisible and unassigned code points as `\u{1B}`, so a
    /// refused name cannot move a terminal's cursor or hide in a log.
    public static func shown(_ text: String) -> String {
        var shown = ""
        for scalar in text.unicodeScalars {
            let properties = scalar.properties
            switch properties.generalCategory {
            case .control, .format, .lineSeparator, .paragraphSeparator, .unassigned, .privateUse, .surrogate:
                shown += "\\u{\(String(scalar.value, radix: 16, uppercase: true))}"
            default:
                if properties.isDefaultIgnorableCodePoint || (scalar.value != 0x20 && properties.generalCategory == .spaceSeparator) {
                    shown += "\\u{\(String(scalar.value, radix: 16, uppercase: true))}"
                } else {
                    shown.unicodeScalars.append(scalar)
                }
            }
        }
        return shown
    }
}
