import MicroAuth
import MicroCore

/// One line of a ``UsersPageSection``: its text, and its button (optional).
public struct UsersPageLine: Sendable {
    /// What the line says (escaped on the page).
    public var text: String
    /// Its button, if any.
    public var button: UsersPageButton?

    /// A line.
    public init(text: String, button: UsersPageButton? = nil) {
        self.text = text
        self.button = button
    }
}
