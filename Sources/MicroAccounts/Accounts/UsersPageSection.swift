import MicroAuth
import MicroCore

/// A plugin's part of the admin's users page (``Accounts/usersPath``): a few lines under
/// each user, each with a button whose form posts to the plugin's own route (with the CSRF
/// token and the user's name). Single sign-on lists a user's linked provider accounts so.
///
/// ```swift
/// app.addUsersPageSection(UsersPageSection(title: "Keys") { request, usernames in
///     ["ann": [UsersPageLine(text: "key 1, made 2026-01-02", button: UsersPageButton(label: "Revoke", action: "/admin/users/keys/revoke", fields: ["key": "1"]))]]
/// })
/// ```
public struct UsersPageSection: Sendable {
    /// The words before the lines (`Single sign-on`).
    public var title: String
    /// The lines of each listed user (by enforced name); a user without any is not given the section.
    public var lines: @Sendable (Request, [String]) async throws -> [String: [UsersPageLine]]
    /// What the plugin does when the page adds a user (drops what an earlier holder of the
    /// name left): words the page then shows, or nil.
    public var userAdded: @Sendable (Request, String) async -> String?

    /// A section titled `title`.
    public init(
        title: String, userAdded: @escaping @Sendable (Request, String) async -> String? = { _, _ in nil },
        lines: @escaping @Sendable (Request, [String]) async throws -> [String: [UsersPageLine]]
    ) {
        self.title = title
        self.userAdded = userAdded
        self.lines = lines
    }
}
