/// A type that checks its own values once decoded: ``Request/decode(_:)`` calls
/// ``validate(into:)`` and, when it added any message, answers 422 with them (a ``FormError``).
///
/// ```swift
/// struct NewNote: Decodable, Validatable {
///     var title: String
///     var body: String
///     var severity: Int
///     var pager: Bool          // a checkbox: false when unchecked
///     var tags: [String]       // tags=a&tags=b, or tags[]=a&tags[]=b
///
///     func validate(into errors: inout FieldErrors) {
///         errors.check("title", title, .notBlank, .length(max: 120))
///         errors.check("severity", severity, .range(1...5))
///         if pager && severity > 2 { errors.add("pager", "Only severities 1 and 2 page.") }
///     }
/// }
/// ```
///
/// Only the decoded type's own checks run: a nested type's `validate(into:)` runs when the
/// outer one calls it.
public protocol Validatable {
    /// Adds a message for each field whose value is not acceptable; adds nothing when all are.
    func validate(into errors: inout FieldErrors)
}
