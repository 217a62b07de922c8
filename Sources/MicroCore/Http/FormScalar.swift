import Foundation

/// The single values a form field holds, read from its text for ``FormValueDecoder``: strings,
/// Booleans, integers, floating-point numbers, `Decimal`, `Date` and `URL`.
enum FormScalar {
    static let required = "This field is required."

    /// `T` read from `node` (its last value), or nil when `T` is no single value. Throws the
    /// message for `field` when the text is not a `T`.
    static func parse<T>(_ type: T.Type, _ node: FormNode, field: String) throws(FormFieldProblem) -> T? {
        func fail(_ message: String) -> FormFieldProblem { FormFieldProblem(field: field, message: message) }
        if T.self == String.self {
            guard let text = node.lastValue else { throw fail(required) }
            return text as? T
        }
        if T.self == Bool.self {
            // An unchecked checkbox sends nothing; a checked one `on`, or its value.
            switch trimmed(node.lastValue ?? "").lowercased() {
            case "on", "true", "1", "yes": return true as? T
            case "", "off", "false", "0", "no": return false as? T
            default: throw fail("Not true or false (on, true, 1, yes; off, false, 0, no).")
            }
        }
        // The text of a number, a date or a URL: required, spaces around it dropped.
        func text() throws(FormFieldProblem) -> String {
            let text = trimmed(node.lastValue ?? "")
            guard !text.isEmpty else { throw fail(required) }
            return text
        }
        if let integer = T.self as? any FixedWidthInteger.Type {
            return try parseInteger(integer, text(), fail) as? T
        }
        if T.self == Double.self || T.self == Float.self || T.self == Decimal.self {
            let text = try text()
            guard isDecimalNumber(text) else { throw fail("Not a number.") }
            let parsed: Any?
            let finite: Bool
            if T.self == Double.self {
                let value = Double(text)
                (parsed, finite) = (value, value?.isFinite ?? false)
            } else if T.self == Float.self {
                let value = Float(text)
                (parsed, finite) = (value, value?.isFinite ?? false)
            } else {
                // `Decimal(string:)` reads a number at the start and ignores the rest (`1.2.3`
                // is 1.2): the text must be a whole number as `Double` reads it.
                guard Double(text) != nil else { throw fail("Not a number.") }
                let value = Decimal(string: text, locale: nil)
                (parsed, finite) = (value ?? Decimal.nan, value?.isFinite ?? false)
            }
            guard let value = parsed as? T else { throw fail("Not a number.") }
            guard finite else { throw fail("The number is out of range.") }
            return value
        }
        if T.self == Date.self {
            guard let date = IsoDate.parse(try text()) else { throw fail(IsoDate.expected) }
            return date as? T
        }
        if T.self == URL.self {
            let text = try text()
            guard !text.contains(where: \.isWhitespace), let url = URL(string: text), url.scheme != nil else {
                throw fail("Not a URL (such as https://example.com/page).")
            }
            return url as? T
        }
        return nil
    }

    /// A stand-in for a field already found wrong, so that decoding goes on to the other
    /// fields; nil for a type that has none.
    static func placeholder<T>(_ type: T.Type) -> T? {
        if T.self == String.self { return "" as? T }
        if T.self == Bool.self { return false as? T }
        if T.self == Date.self { return Date(timeIntervalSince1970: 0) as? T }
        if T.self == URL.self { return URL(string: "about:blank") as? T }
        if let number = T.self as? any AdditiveArithmetic.Type { return zero(number) as? T }
        if let choice = T.self as? any CaseIterable.Type { return first(choice) as? T }
        if let list = T.self as? any RangeReplaceableCollection.Type { return empty(list) as? T }
        return nil
    }

    /// The message for text that is none of an enumeration's raw values: its choices when it
    /// lists them.
    static func notAChoice<T>(_ type: T.Type) -> String? {
        if let choices = T.self as? any (CaseIterable & RawRepresentable).Type {
            return "Not one of the choices: \(list(choices))."
        }
        return T.self is any RawRepresentable.Type ? "Not one of the choices." : nil
    }

    private static func parseInteger<I: FixedWidthInteger>(
        _ type: I.Type, _ text: String, _ fail: (String) -> FormFieldProblem
    ) throws(FormFieldProblem) -> I {
        if let value = I(text, radix: 10) { return value }
        let digits = text.utf8.drop { $0 == UInt8(ascii: "-") || $0 == UInt8(ascii: "+") }
        if !digits.isEmpty, digits.allSatisfy({ $0 &- UInt8(ascii: "0") < 10 }) {
            throw fail("Must be a whole number from \(I.min) to \(I.max).")
        }
        throw fail("Not a whole number.")
    }

    /// Digits, an optional sign, point and exponent: no `inf`, `nan` or hexadecimal, which
    /// `Double(_:)` reads too.
    private static func isDecimalNumber(_ text: String) -> Bool {
        text.utf8.contains { $0 &- UInt8(ascii: "0") < 10 }
            && text.utf8.allSatisfy { byte in
                byte &- UInt8(ascii: "0") < 10 || byte == UInt8(ascii: ".") || byte == UInt8(ascii: "-")
                    || byte == UInt8(ascii: "+") || byte == UInt8(ascii: "e") || byte == UInt8(ascii: "E")
            }
    }

    /// `text` without the spaces and tabs around it (a number typed with a space after it).
    private static func trimmed(_ text: String) -> String {
        guard let first = text.utf8.first, let last = text.utf8.last,
            first == 0x20 || first == 0x09 || last == 0x20 || last == 0x09
        else { return text }
        return text.trimmingSpaces()
    }

    private static func zero<N: AdditiveArithmetic>(_ type: N.Type) -> N { .zero }
    private static func first<C: CaseIterable>(_ type: C.Type) -> C? { C.allCases.first }
    private static func empty<C: RangeReplaceableCollection>(_ type: C.Type) -> C { C() }

    private static func list<E: CaseIterable & RawRepresentable>(_ type: E.Type) -> String {
        let shown = 12
        let values = E.allCases.prefix(shown).map { "\($0.rawValue)" }
        return values.joined(separator: ", ") + (E.allCases.count > shown ? ", …" : "")
    }
}
