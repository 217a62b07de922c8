/// A refused form on its way back to the page it was sent from, in the session for one
/// redirect (Rails' and Flask's flash of errors): the messages and the short values typed,
/// never a secret. A session lives in a cookie a browser keeps only up to a size, so what is
/// carried is bounded: a long value (a note's body) is left out rather than cut, since a cut
/// text sent again would lose its end without a word; the page then shows that field empty
/// beside its message. A page that must keep long text shows the form itself
/// (``Request/formPage(_:_:formValues:layout:)``).
struct CarriedForm: Codable, Sendable, Equatable {
    static let sessionKey = "_form"
    /// The most values, and the most fields with messages, carried.
    static let fieldLimit = 16
    /// The longest field name carried, and the longest value, in bytes (``size(_:)``).
    static let nameLimit = 64
    static let valueLimit = 256
    /// The most bytes of names, values and messages carried in all, well within a cookie; the
    /// messages have at most half, so that the values typed keep room.
    static let byteLimit = 1536

    /// Field, value: as sent, in order.
    var values: [[String]]
    /// Field, its messages joined.
    var errors: [[String]]

    /// The carried part of `error`: messages first, since they say what to fix, then values.
    init(_ error: FormError) {
        var budget = Self.byteLimit / 2
        errors = []
        for (field, messages) in error.errors.all.prefix(Self.fieldLimit) where Self.size(field) <= Self.nameLimit {
            let message = Self.prefix(messages.joined(separator: " "), size: min(Self.valueLimit, budget - Self.size(field)))
            guard !message.isEmpty else { break }
            budget -= Self.size(field) + Self.size(message)
            errors.append([field, message])
        }
        budget += Self.byteLimit / 2
        values = []
        // Every value of a repeated name (ticked checkboxes), for `request.options` to mark.
        for (name, value) in error.values where !SecretFields.contains(name) {
            let (nameSize, valueSize) = (Self.size(name), Self.size(value))
            guard nameSize <= Self.nameLimit, valueSize <= Self.valueLimit, nameSize + valueSize <= budget else { continue }
            budget -= nameSize + valueSize
            values.append([name, value])
            if values.count == Self.fieldLimit { break }
        }
    }

    /// The form as the page shows it; nil for what no refusal carries.
    var formError: FormError? {
        guard values.count <= Self.fieldLimit, errors.count <= Self.fieldLimit,
            values.allSatisfy({ $0.count == 2 }), errors.allSatisfy({ $0.count == 2 })
        else { return nil }
        var fields = FieldErrors()
        for error in errors { fields.add(error[0], error[1]) }
        return FormError(fields, values: values.map { ($0[0], $0[1]) })
    }

    /// The bytes `text` takes in the session's JSON: a quote, a backslash or a slash is escaped
    /// in two, a control character in six.
    static func size(_ text: String) -> Int {
        text.utf8.reduce(0) { $0 + size($1) }
    }

    private static func size(_ byte: UInt8) -> Int {
        switch byte {
        case UInt8(ascii: "\""), UInt8(ascii: "\\"), UInt8(ascii: "/"): 2
        case ..<0x20: 6
        default: 1
        }
    }

    /// The longest start of `text` of at most `size` bytes (``size(_:)``), whole scalars only.
    private static func prefix(_ text: String, size limit: Int) -> String {
        guard size(text) > limit else { return text }
        var kept = String.UnicodeScalarView()
        var total = 0
        for scalar in text.unicodeScalars {
            total += String(scalar).utf8.reduce(0) { $0 + size($1) }
            guard total <= limit else { break }
            kept.append(scalar)
        }
        return String(kept)
    }
}
