import MicroAuth
import MicroCore

/// What the add form and the invitation share: the new user's fields, checked, and their
/// addition to the store.
extension UserAdminRoutes {
    /// A new user's fields as the add and invite forms give them, each checked.
    struct NewUser {
        var username = ""
        var name: String?
        var roles: [String] = []
        var email: String?
        /// What was typed as the name, for a password rule that compares it.
        var typed = ""
    }

    /// The add and invite forms' name, display name, roles and address, checked: the user,
    /// or the errors by field.
    func newUser(_ request: Request, _ store: any ManagedUserStore, errors: inout FieldErrors) async throws -> NewUser {
        var user = NewUser()
        user.typed = (request.params["new_username"] ?? "").trimmingSpaces()
        let name = (request.params["name"] ?? "").trimmingSpaces()
        let emailText = String((request.params["email"] ?? "").prefix(1024))
        if user.typed.utf8.count > Authentication.maximumUsernameLength {
            errors.add("new_username", "A username is at most \(Authentication.maximumUsernameLength) bytes long.")
        } else {
            do throws(UsernameError) {
                user.username = try Username.enforce(user.typed)
            } catch {
                let message = error.description
                errors.add("new_username", message.prefix(1).uppercased() + message.dropFirst() + ".")
            }
        }
        do throws(MailAddressError) {
            user.email = try User.checkedEmail(emailText)
        } catch {
            errors.add("email", error.description.prefix(1).uppercased() + error.description.dropFirst() + ".")
        }
        if errors.isEmpty {
            do {
                let others = try await store.managedUsers()
                let names = others.map(\.user.username)
                if names.contains(user.username) {
                    errors.add("new_username", texts.nameTaken)
                } else if let lookalike = UsernameConfusables.lookalike(of: user.username, among: names) {
                    errors.add("new_username", "That name looks like the existing user '\(lookalike)': choose one that cannot be mistaken for it.")
                }
                if let email = user.email?.lowercased(), others.contains(where: { $0.user.email?.lowercased() == email }) {
                    errors.add("email", texts.emailTaken)
                }
            } catch {
                throw unavailable(request, error)
            }
        }
        if !Self.isAcceptable(name: name) { errors.add("name", texts.badName) }
        user.name = name.isEmpty ? nil : name
        if let roles = Self.roles(request.params["roles"] ?? "") { user.roles = roles } else { errors.add("roles", texts.badRoles) }
        return user
    }

    /// Adds `user` with `hash` and drops what an earlier holder of the name left; false (with
    /// the error) when the store found the name or the address taken meanwhile.
    func addUser(
        _ user: NewUser, hash: String, changeDue: Bool, _ store: any ManagedUserStore, _ request: Request, errors: inout FieldErrors
    ) async throws -> Bool {
        let added: Bool
        do {
            added = try await store.addUser(
                username: user.username, name: user.name, roles: user.roles, email: user.email, passwordHash: hash, passwordChangeDue: changeDue)
        } catch {
            throw unavailable(request, error)
        }
        guard added else {
            // The name, or (two admins at once) the address: the store's unique indexes refused it.
            errors.add("new_username", texts.nameTaken + (user.email == nil ? "" : " (or of that email address)"))
            return false
        }
        await forgetLeftovers(of: user.username, request)
        return true
    }
}
