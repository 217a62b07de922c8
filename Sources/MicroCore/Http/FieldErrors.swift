/// Messages about a form's fields, each kept under the field's name, in the order they were
/// added: what ``Validatable/validate(into:)`` fills and a ``FormError`` carries.
///
/// A field may have several messages; the same message twice for one field is kept once.
///
/// ```swift
/// var errors = FieldErrors()
/// errors.check("title", title, .notBlank, .length(max: 120))
/// errors.check("severity", severity, .range(1...5))
/// if body.contains("BEGIN PRIVATE KEY") { errors.add("body", "Do not paste keys here.") }
/// ```
public struct FieldErrors: Sendable, Equatable, CustomStringConvertible {
    private var entries: [(field: String, messages: [String])] = []

    /// No messages.
    public init() {}

    /// Whether no field has a message.
    public var isEmpty: Bool { entries.isEmpty }

    /// The fields with messages, in the order they were first added.
    public var fields: [String] { entries.map(\.field) }

    /// Each field with its messages, in the order they were first added.
    public var all: [(field: String, messages: [String])] { entries }

    /// The messages about `field` (none when it is fine).
    public subscript(field: String) -> [String] {
        entries.first { $0.field == field }?.messages ?? []
    }

    /// Adds `message` about `field`.
    public mutating func add(_ field: String, _ message: String) {
        if let index = entries.firstIndex(where: { $0.field == field }) {
            if !entries[index].messages.contains(message) { entries[index].messages.append(message) }
        } else {
            entries.append((field, [message]))
        }
    }

    /// Checks `value` against each rule and adds the message of each that fails; a failed
    /// ``FieldRule/notBlank`` stops the rest (an empty field needs no other message).
    public mutating func check<Value>(_ field: String, _ value: Value, _ rules: FieldRule<Value>...) {
        check(field, value, rules)
    }

    /// Checks an optional field only when it was given: a missing one passes.
    public mutating func check<Value>(_ field: String, _ value: Value?, _ rules: FieldRule<Value>...) {
        guard let value else { return }
        check(field, value, rules)
    }

    private mutating func check<Value>(_ field: String, _ value: Value, _ rules: [FieldRule<Value>]) {
        for rule in rules {
            guard let message = rule.check(value) else { continue }
            add(field, message)
            if rule.stopsOnFailure { return }
        }
    }

    /// The messages about `field` as one text (`"Too short. Must contain a digit."`), or nil.
    public func message(for field: String) -> String? {
        let messages = self[field]
        return messages.isEmpty ? nil : messages.joined(separator: " ")
    }

    /// `field: message` for each field, in one line.
    public var description: String {
        entries.map { "\($0.field): \($0.messages.joined(separator: " "))" }.joined(separator: " ")
    }

    public static func == (lhs: FieldErrors, rhs: FieldErrors) -> Bool {
        lhs.entries.count == rhs.entries.count
            && zip(lhs.entries, rhs.entries).allSatisfy { $0.field == $1.field && $0.messages == $1.messages }
    }
}
