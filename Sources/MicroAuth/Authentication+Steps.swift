import MicroCore

// The steps of `Authentication.install`, in the order it takes them.
extension Authentication {
    /// Why these settings cannot work, for the app's start-up problems; nil when they can.
    var settingsProblem: String? {
        guard Password.costs.contains(passwordCost) else {
            return "Authentication.passwordCost is \(passwordCost); a bcrypt cost is from \(Password.costs.lowerBound) to \(Password.costs.upperBound)."
        }
        // The throttle counts in whole seconds: a shorter window would count no failure at all.
        if throttleLimits.window < .seconds(1) {
            return "Authentication.throttleLimits.window is \(throttleLimits.window); it must be at least a second."
        }
        return nil
    }

    /// The service that routes and other plugins find, its pages' templates and metrics, the
    /// session key that means someone is signed in, and the user store's reload on SIGHUP.
    func registerServices(_ service: AuthenticationService, in app: App) {
        app.register(service)
        app.addBuiltInTemplates([AuthenticationTemplates.signInName: AuthenticationTemplates.signIn, AuthenticationTemplates.signOutName: AuthenticationTemplates.signOut])
        app.addMetrics { factory in SignInMetrics(factory: factory) }
        app.addSignedInSessionKey(Session.userKey)
        if let reloadable = users as? any Reloadable { app.addReloadable(reloadable) }
        if let warning = (users as? YamlUserStore)?.costWarning(configuredCost: passwordCost) { app.logger.warning("\(warning)") }
    }

    /// HTTP Basic on every request that sends it, where passwords sign in.
    func checkBasicCredentials(_ service: AuthenticationService, in app: App) {
        guard acceptsBasicCredentials && acceptsPasswords else { return }
        app.addCredentialCheck("HTTP Basic") { request in try await service.acceptBasicCredentials(request) }
        app.addCredentialScheme(CredentialScheme(
            name: "Basic", challenge: "Basic realm=\"\(basicRealm)\", charset=\"UTF-8\"",
            phrase: "the username and password with HTTP Basic authentication"))
    }

    /// Production refuses to start while a users file holds a published demo password.
    func checkDemoPasswordsAtStartup(in app: App) {
        let (yaml, demoPasswords, allowsDemoUsers) = (users as? YamlUserStore, demoPasswords, allowsDemoUsers)
        app.addStartupCheck("demo passwords in the users file") { settings in
            DemoPasswordCheck.result(yaml, passwords: demoPasswords, allowed: allowsDemoUsers, settings: settings)
        }
    }

    /// A session is over once its user was removed, their password changed, or their
    /// sessions were revoked: checked from memory on each request, against the revocations
    /// the app serves with.
    func checkSessionsAgainstTheStore(_ service: AuthenticationService, in app: App) {
        let externalSignIns = app.externalSignIns
        app.addSessionCheck("the signed-in user's credential is current and not revoked") { data, revocations in
            guard let user = Session.signedInUser(in: data) else { return true }
            guard let stamp = data.values[Session.credentialKey].flatMap(Session.plainString) else { return false }
            let credential = CredentialStamp(text: stamp)
            guard !revocations.isRevoked(username: user.username, created: data.createdMilliseconds) else { return false }
            if service.isCurrent(credential, username: user.username) { return true }
            if let prior = data.values[Session.priorCredentialKey].flatMap(Session.plainString),
                service.isCurrent(CredentialStamp(text: prior), username: user.username)
            { return true }
            // A session another way signed in (single sign-on) for a user the store does not
            // hold as it was: that way decides.
            guard let source = data.values[Session.sourceKey].flatMap(Session.plainString),
                let way = externalSignIns.way(source)
            else { return false }
            return way.acceptsSession(user, credential)
        }
    }

    /// The signed-in user and the sign-in page's parts, for every template.
    func addTemplateValues(in app: App) {
        let (signInPath, signOutPath, acceptsPasswords) = (signInPath, signOutPath, acceptsPasswords)
        let externalSignIns = app.externalSignIns
        app.addTemplateValue("signInPath") { request in request.url(signInPath) }
        app.addTemplateValue("signOutPath") { request in request.url(signOutPath) }
        // `{{#currentUser.role.admin}}` shows what only admins see.
        app.addTemplateValue("currentUser") { request in
            request.currentUser.map { user -> [String: any Sendable] in
                [
                    "username": user.username, "name": user.name, "roles": user.roles,
                    "role": Dictionary(uniqueKeysWithValues: user.roles.map { ($0, true) }),
                ]
            }
        }
        // The same set on its own: `{{#roles.editor}}`, `{{^roles.admin}}`.
        app.addTemplateValue("roles") { request in
            request.currentUser.map { user -> [String: Bool] in Dictionary(uniqueKeysWithValues: user.roles.map { ($0, true) }) }
        }
        app.addTemplateValue("signedIn") { request in request.currentUser != nil ? true : nil }
        // The sign-in page's other ways in: `{{#signInButtons}}<form action="{{action}}">...`.
        app.addTemplateValue("signInButtons") { request in
            externalSignIns.buttons.map { way -> [String: any Sendable] in ["label": way.label, "action": request.url(way.action)] }
        }
        app.addTemplateValue("passwordSignIn") { _ in acceptsPasswords ? true : nil }
        // Other plugins' blocks beside the password form (``SignInPageAddition``).
        let additions = app.signInPageAdditions
        app.addTemplateValue("signInAdditions") { request in
            additions.shown(for: request).blocks.map { block -> [String: any Sendable] in
                var value: [String: any Sendable] = ["html": block.html]
                if let script = block.script { value["script"] = script }
                return value
            }
        }
        app.addTemplateValue("usernameAutocomplete") { request in additions.shown(for: request).usernameAutocomplete }
    }

    /// `GET` and `POST` of the sign-in and sign-out pages.
    func addSignInAndSignOutRoutes(_ service: AuthenticationService, in app: App) {
        let (signInPath, homePath, flashKey, acceptsPasswords) = (signInPath, homePath, flashKey, acceptsPasswords)
        let (signInTemplate, signOutTemplate) = (signInTemplate, signOutTemplate)
        let (welcomeMessage, failureMessage, signedOutMessage) = (welcomeMessage, failureMessage, signedOutMessage)
        let externalSignIns = app.externalSignIns
        let additions = app.signInPageAdditions
        let signIn = signInPath + "/?"
        let signOut = signOutPath + "/?"
        app.get(signIn) { request in
            try service.page(request, template: signInTemplate, builtIn: AuthenticationTemplates.signInName, title: "Sign In") { request in
                BuiltInPages.signIn(request, passwords: acceptsPasswords, buttons: externalSignIns.buttons, additions: additions.shown(for: request))
            }
        }
        app.post(signIn) { request in
            guard acceptsPasswords else {
                throw HttpError(.forbidden, "Signing in with a password is turned off here: use the single sign-on button on the sign-in page.")
            }
            let username = request.params["username"] ?? ""
            let password = request.params["password"] ?? ""
            if let user = try await request.signIn(username: username, password: password) {
                request.flash[flashKey] = welcomeMessage(user)
                try request.redirect(to: request.takeOriginalPath() ?? homePath)
            }
            request.flash[flashKey] = failureMessage
            try request.redirect(to: signInPath)
        }
        app.get(signOut) { request in
            try service.page(
                request, template: signOutTemplate, builtIn: AuthenticationTemplates.signOutName, title: "Sign Out",
                values: ["homePath": request.url(homePath)], fallback: BuiltInPages.signOut)
        }
        app.post(signOut) { request in
            await request.announce { await $0.signingOut(request) }
            request.signOut()
            request.flash[flashKey] = signedOutMessage
            try request.redirect(to: homePath)
        }
    }
}
