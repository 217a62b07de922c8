import MicroAuth
import MicroCore

/// A button of a users page line: a form posting `fields` (and the user's `username` and the
/// CSRF token) to `action`, with a text field named `input` when it asks for one.
public struct UsersPageButton: Sendable {
    /// The button's words.
    public var label: String
    /// The app's path the form posts to.
    public var action: String
    /// Hidden fields.
    public var fields: [String: String]
    /// The name and label of a text field the admin fills in, if any.
    public var input: (name: String, label: String)?

    /// A button.
    public init(label: String, action: String, fields: [String: String] = [:], input: (name: String, label: String)? = nil) {
        self.label = label
        self.action = action
        self.fields = fields
        self.input = input
    }
}
