/// Why a tool could not do what was asked: the form input at fault and a sentence for a person.
///
/// The pages show `message` next to the input named by `field`, so the message is written for
/// the user of the tool, not for a log.
struct ToolError: Error, Equatable, Sendable {
    /// The form input the error is about: "millis", "date", "zone", "format", "input", "key",
    /// "hash" or "cost".
    var field: String
    /// What is wrong and, where it helps, what would be accepted.
    var message: String
}
