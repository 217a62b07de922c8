import MicroAccounts
import MicroAuth
import MicroCore

/// When the app requires a second factor (``TwoFactorSettings/requiredForRoles``): a signed-in
/// user who must have one and has none is sent to the two-factor page until they turn it on;
/// only that page, the account's index and sign-out stay reachable (not, say, the tokens page,
/// or a password alone would mint a credential that needs no code). A script's request (HTTP
/// Basic or an API token) of such a user is refused with a `403` until they have it on.
///
/// A session signed in by single sign-on (``Request/signInSource``) is not held to it: the
/// provider, where the company enforces its own second factor, vouched for the person. Nor is
/// one signed in by a passkey that verified the person (the device's PIN, fingerprint or face
/// beside the device itself: two factors).
struct TwoFactorRequirement {
    let service: TwoFactorService
    let routes: TwoFactorAccountRoutes

    /// The session key noting when its user was last found with a second factor on: a look-up
    /// every few minutes, not every request, and an admin's reset is noticed within them.
    static let confirmedKey = "_two_factor_on"
    /// How long that note stands, in seconds.
    static let confirmedLifetime: Int64 = 300

    func install(in app: App) {
        let prefix = service.accountsPrefix
        app.before { request in
            guard let user = request.currentUser, routes.mustTurnOn(user) else { return }
            if request.isAuthenticatedByHeader {
                // No session to remember the answer in: looked up for each such request.
                if try await service.isOn(user.username) { return }
                throw HttpError(.forbidden, service.settings.requiredMessage)
            }
            guard request.signInSource == nil, !request.signInProvedTwoFactors(user.username) else { return }
            let now = request.session.now
            if let noted = request.session[Self.confirmedKey].flatMap(Int64.init), now >= noted, now - noted < Self.confirmedLifetime { return }
            let signOut = request.authenticationSettings?.signOutPath ?? "/signout"
            let twoFactor = prefix + "/two-factor"
            let path = request.path
            if path == prefix || path == prefix + "/" || path == twoFactor || path.hasPrefix(twoFactor + "/") || path == signOut
                || path == signOut + "/"
            {
                return
            }
            // A password someone else set is changed first (the account pages lead there): its
            // page is not led away from, or the two requirements would send the browser
            // back and forth.
            if request.isPasswordChangeDue, path == prefix + "/password" || path == prefix + "/password/" { return }
            if try await service.isOn(user.username) {
                request.session[Self.confirmedKey] = String(now)
                return
            }
            request.session.remove(Self.confirmedKey)
            if request.wantsJson { throw HttpError(.forbidden, service.settings.requiredMessage) }
            try request.redirect(to: twoFactor)
        }
    }
}
