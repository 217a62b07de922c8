import MicroAccounts
import MicroAuth
import MicroCore

/// Passkeys on the admin's users page: each user's count, and a button that removes them all
/// (a user who lost a device that holds one, or whose passkeys should no longer sign in),
/// checked as the page's own changes are.
struct PasskeyUserAdmin {
    let store: PasskeyStore

    func install(in app: App, usersPath: String) {
        let store = store
        let removePath = usersPath + "/passkeys/remove"
        app.addUsersPageSection(UsersPageSection(title: "Passkeys") { _, usernames in
            let counts = try await store.counts()
            var lines: [String: [UsersPageLine]] = [:]
            for username in usernames {
                guard let count = counts[Username.key(username)], count > 0 else { continue }
                lines[username] = [UsersPageLine(
                    text: count == 1 ? "1 passkey" : "\(count) passkeys",
                    button: UsersPageButton(label: "Remove passkeys", action: removePath, fields: [:]))]
            }
            return lines
        })
        app.post(removePath + "/?") { request in try await remove(request) }
    }

    private func remove(_ request: Request) async throws -> Never {
        try await request.authorizeUsersPageChange()
        guard let username = try? Username.enforce(String((request.params["username"] ?? "").prefix(Authentication.maximumUsernameLength))) else {
            throw HttpError(.notFound, "There is no such user.")
        }
        guard try await Self.removeAll(of: username, store: store, request) > 0 else {
            throw HttpError(.notFound, "\(username) has no passkeys.")
        }
        request.flash[request.authenticationSettings?.flashKey ?? "notice"] = "\(username)'s passkeys are removed: they sign in with none of them again. Sessions they signed in go on: end them with “End sessions” if they should not."
        try request.redirect(to: request.usersPagePath ?? "/")
    }

    /// Removes every passkey of `username`, recorded as their event naming the admin signed in
    /// to `request` (the button's, or a change that ended the user's whole access); how many.
    @discardableResult
    static func removeAll(of username: String, store: PasskeyStore, _ request: Request) async throws -> Int {
        let removed = try await store.removeAll(of: Username.key(username))
        guard removed > 0 else { return 0 }
        let by = request.currentUser?.username ?? "an admin"
        await request.recordAccountEvent(ActivityEvent.Kind.passkeyRemoved, of: username, detail: "all \(removed), by \(by)")
        return removed
    }
}
