import MicroAuth
import MicroCore

/// Installs passkeys with the account pages (``Accounts``): their tables, the account page and
/// its script, the sign-in by passkey and the second step by passkey, and their part of the
/// users page, whose changes that end a user's whole access remove their passkeys. Without the
/// account pages' database there is nowhere to keep passkeys: the page says so.
enum PasskeyFeature {
    static func install(_ settings: PasskeySettings, database: Database?, accounts: AccountsService, prefix: String, in app: App) {
        if settings.limit < 1 { app.addProblem("Accounts.passkeys.limit is \(settings.limit); it must be at least 1.") }
        let service = PasskeyService(settings: settings, store: database.map(PasskeyStore.init), accountsPrefix: prefix, logger: app.logger)
        app.register(service)
        if let database { app.addPreparation("migrations: passkeys") { try await database.migrate(PasskeyStore.migrations) } }
        app.addBuiltInTemplates(PasskeyTemplates.all)
        app.addTemplateValue("passkeysPath") { request in database == nil ? nil : request.url(service.pagePath) }
        app.get(service.scriptPath) { request in try PasskeyScript.send(request) }
        PasskeyAccountRoutes(service: service, accounts: accounts).install(in: app)
        PasskeyConfirmationRoutes(service: service, accounts: accounts).install(in: app)
        PasskeySignInRoutes(service: service).install(in: app)
        PasskeySecondStepRoutes(service: service).install(in: app)
        app.addSignInPageAddition(SignInPageAddition(scriptPath: service.scriptPath, usernameAutocomplete: "webauthn") { request in
            PasskeySignInButton.signIn(request, service)
        })
        if let store = service.store {
            PasskeyUserAdmin(store: store).install(in: app, usersPath: accounts.settings.usersPath)
            app.onAccessEnded("passkeys") { request, username in try await PasskeyUserAdmin.removeAll(of: username, store: store, request) }
        }
    }
}
