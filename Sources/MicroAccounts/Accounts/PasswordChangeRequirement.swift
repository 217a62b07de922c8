import MicroAuth
import MicroCore

/// A session signed in with a password someone else set (`StoredUser.passwordChangeDue`:
/// an admin on the users page, `add-user`) reaches only the page that changes it, and sign-out,
/// until the user chooses their own: every other page leads there (a JSON request gets a
/// `403` saying why). A password two people know is nobody's proof, so nothing else opens
/// with it. Scripts' credentials (HTTP Basic, API tokens) of such a user are refused where
/// they are checked.
struct PasswordChangeRequirement {
    let settings: Accounts

    func install(in app: App) {
        let password = settings.prefix + "/password"
        let message = settings.passwordChangeDueMessage
        app.before { request in
            guard request.isPasswordChangeDue else { return }
            let signOut = request.authenticationSettings?.signOutPath ?? "/signout"
            let path = request.path
            if path == password || path == password + "/" || path == signOut || path == signOut + "/" { return }
            if request.wantsJson { throw HttpError(.forbidden, message) }
            // The page says why (``Accounts/passwordChangeDueMessage``).
            try request.redirect(to: password)
        }
    }
}
