/// When the app requires a second factor (``TwoFactorSettings/requiredForRoles``): a signed-in
/// user who must have one and has none is sent to the two-factor page until they turn it on.
/// That page, the rest of their account and sign-out stay reachable.
struct TwoFactorRequirement {
    let service: TwoFactorService
    let routes: TwoFactorAccountRoutes

    /// The session key noting that its user has a second factor on: one look-up per session.
    static let confirmedKey = "_two_factor_on"

    func install(in app: App) {
        let prefix = service.accountsPrefix
        app.before { request in
            guard request.credentialsUser == nil, let user = request.currentUser, routes.mustTurnOn(user),
                request.session[Self.confirmedKey] == nil
            else { return }
            let signOut = request.authenticationSettings?.signOutPath ?? "/signout"
            if request.path == prefix || request.path.hasPrefix(prefix + "/") || request.path == signOut || request.path == signOut + "/" { return }
            if try await service.isOn(user.username) {
                request.session[Self.confirmedKey] = "1"
                return
            }
            if request.wantsJson { throw HttpError(.forbidden, service.settings.requiredMessage) }
            try request.redirect(to: prefix + "/two-factor")
        }
    }
}
