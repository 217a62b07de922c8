import MicroAuth
import MicroCore

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
    var usersPageSections: UsersPageSections { updateService(UsersPageSections()) }
}
