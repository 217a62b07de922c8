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

/// The sections plugins added, in the order they were added.
final class UsersPageSections: Sendable {
    private let all = Locked<[UsersPageSection]>([])

    var list: [UsersPageSection] { all.withLock { $0 } }

    func add(_ section: UsersPageSection) { all.withLock { $0.append(section) } }

    /// What the sections say of `username`, added just now.
    func added(_ username: String, _ request: Request) async -> [String] {
        var said: [String] = []
        for section in list { if let words = await section.userAdded(request, username) { said.append(words) } }
        return said
    }

    /// The page's values of the sections of `usernames`: for each user, a list of
    /// `sectionTitle` and `sectionLines` (each `lineText`, and `button`: `buttonLabel`,
    /// `buttonAction`, `buttonFields` (`name`, `value`), `buttonInput`, `buttonInputLabel`).
    func values(_ request: Request, usernames: [String]) async throws -> [String: [[String: Any]]] {
        var values: [String: [[String: Any]]] = [:]
        for section in list {
            for (username, lines) in try await section.lines(request, usernames) where !lines.isEmpty {
                values[username, default: []].append([
                    "sectionTitle": section.title,
                    "sectionLines": lines.map { line -> [String: Any] in
                        var value: [String: Any] = ["lineText": line.text]
                        if let button = line.button {
                            var buttonValue: [String: Any] = [
                                "buttonLabel": button.label, "buttonAction": request.url(button.action),
                                "buttonFields": button.fields.sorted { $0.key < $1.key }.map { ["name": $0.key, "value": $0.value] },
                            ]
                            if let input = button.input {
                                buttonValue["buttonInput"] = input.name
                                buttonValue["buttonInputLabel"] = input.label
                            }
                            value["button"] = buttonValue
                        }
                        return value
                    },
                ])
            }
        }
        return values
    }
}

extension App {
    /// Adds a section to the admin's users page (``UsersPageSection``).
    public func addUsersPageSection(_ section: UsersPageSection) {
        usersPageSections.add(section)
    }

    /// The users page's sections, made when first asked for.
    var usersPageSections: UsersPageSections {
        var found: UsersPageSections?
        update { definition in
            if let existing = definition.extensions[ObjectIdentifier(UsersPageSections.self)] as? UsersPageSections {
                found = existing
            } else {
                let made = UsersPageSections()
                definition.extensions[ObjectIdentifier(UsersPageSections.self)] = made
                found = made
            }
        }
        return found!
    }
}
