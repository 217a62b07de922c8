/// A check of one field's value, for `FieldErrors.check(_:_:_:)`: the message when the
/// value fails it, nil when it passes.
///
/// The common ones are here (`.notBlank`, `.length(...)`, `.range(...)`, `.matches(...)`,
/// `.email`, `.count(...)`); write your own with a closure:
///
/// ```swift
/// extension FieldRule where Value == String {
///     static var corporateAddress: FieldRule {
///         FieldRule { $0.hasSuffix("@example.com") ? nil : "Use your example.com address." }
///     }
/// }
/// ```
public struct FieldRule<Value> {
    let check: (Value) -> String?
    let stopsOnFailure: Bool

    /// A rule that answers the message for a value that fails it, or nil.
    public init(_ check: @escaping (Value) -> String?) {
        self.init(check, stopsOnFailure: false)
    }

    init(_ check: @escaping (Value) -> String?, stopsOnFailure: Bool) {
        self.check = check
        self.stopsOnFailure = stopsOnFailure
    }
}

extension FieldRule where Value == String {
    /// Not empty nor only white space. When it fails, the field's later rules are not checked.
    public static var notBlank: FieldRule {
        FieldRule({ $0.allSatisfy(\.isWhitespace) ? "This field is required." : nil }, stopsOnFailure: true)
    }

    /// At least `range.lowerBound` and at most `range.upperBound` characters.
    ///
    /// Characters are counted as Unicode scalars, not as the letters a reader sees: a letter may
    /// carry any number of combining marks, and a limit that counted letters would let such a
    /// text through at any length.
    public static func length(_ range: ClosedRange<Int>) -> FieldRule {
        FieldRule { text in
            let count = text.unicodeScalars.count
            return range.contains(count) ? nil : "Must be \(range.lowerBound) to \(range.upperBound) characters."
        }
    }

    /// At least `min` characters (counted as ``length(_:)`` counts them).
    public static func length(min: Int) -> FieldRule {
        FieldRule { $0.unicodeScalars.count >= min ? nil : "Must be at least \(min) characters." }
    }

    /// At most `max` characters (counted as ``length(_:)`` counts them).
    public static func length(max: Int) -> FieldRule {
        FieldRule { $0.unicodeScalars.count <= max ? nil : "Must be at most \(max) characters." }
    }

    /// The whole text matches `regex` (`#/[a-z0-9-]+/#`); `message` says what is expected.
    public static func matches<Output>(_ regex: Regex<Output>, _ message: String) -> FieldRule {
        FieldRule { text in (try? regex.wholeMatch(in: text)) != nil ? nil : message }
    }

    /// Looks like an e-mail address: one `@` with text before it and a dotted domain after,
    /// no spaces. Only sending a mail proves an address.
    public static var email: FieldRule {
        FieldRule { text in
            let parts = text.split(separator: "@", omittingEmptySubsequences: false)
            let valid = parts.count == 2 && !parts[0].isEmpty && !text.contains(where: \.isWhitespace)
                && parts[1].split(separator: ".", omittingEmptySubsequences: false).count >= 2
                && !parts[1].split(separator: ".", omittingEmptySubsequences: false).contains(where: \.isEmpty)
            return valid ? nil : "Not a valid e-mail address."
        }
    }
}

extension FieldRule where Value: Comparable {
    /// From `range.lowerBound` to `range.upperBound`.
    public static func range(_ range: ClosedRange<Value>) -> FieldRule {
        FieldRule { range.contains($0) ? nil : "Must be from \(range.lowerBound) to \(range.upperBound)." }
    }

    /// At least `range.lowerBound`.
    public static func range(_ range: PartialRangeFrom<Value>) -> FieldRule {
        FieldRule { range.contains($0) ? nil : "Must be at least \(range.lowerBound)." }
    }

    /// At most `range.upperBound`.
    public static func range(_ range: PartialRangeThrough<Value>) -> FieldRule {
        FieldRule { range.contains($0) ? nil : "Must be at most \(range.upperBound)." }
    }
}

extension FieldRule where Value: Collection {
    /// From `range.lowerBound` to `range.upperBound` elements (for a list: the checked boxes,
    /// say). For text, ``length(_:)`` counts safely.
    public static func count(_ range: ClosedRange<Int>) -> FieldRule {
        FieldRule { value in
            range.contains(value.count) ? nil : range.lowerBound == range.upperBound
                ? "Choose exactly \(range.lowerBound)." : "Choose \(range.lowerBound) to \(range.upperBound)."
        }
    }
}

extension FieldRule where Value: Equatable {
    /// One of `options` (a select's, radio buttons'): a value the form never offered is refused
    /// next to the field.
    public static func oneOf(_ options: [Value]) -> FieldRule {
        FieldRule { options.contains($0) ? nil : "Choose one of the options." }
    }
}

extension FieldRule {
    /// Each of the values (checkboxes' of one name) is one of `options`; an empty one (the
    /// hidden field that stands for none ticked) is let by.
    public static func each(oneOf options: [String]) -> FieldRule where Value == [String] {
        FieldRule { values in values.allSatisfy { $0.isEmpty || options.contains($0) } ? nil : "Choose among the options." }
    }
}
