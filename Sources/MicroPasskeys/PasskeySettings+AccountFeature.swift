import MicroAccounts
import MicroAuth
import MicroCore
import MicroTwoFactor

extension PasskeySettings: AccountFeature {
    /// Installs passkeys with the account pages: their tables, the account page and its script,
    /// the sign-in by passkey and the second step by passkey, and their part of the users page,
    /// whose changes that end a user's whole access remove their passkeys. Without the account
    /// pages' database there is nowhere to keep passkeys: the page says so.
    public func install(in app: App, accounts: Accounts) {
        if limit < 1 { app.addProblem("Accounts.passkeys.limit is \(limit); it must be at least 1.") }
        // A passkey that did not verify the person leads to the second factor's step, and one
        // may answer that step: the step must be two-factor sign-in's.
        if accounts.feature(TwoFactorSettings.self) == nil {
            app.addProblem("Accounts.passkeys needs two-factor sign-in among the account pages' features: add TwoFactorSettings() to Accounts.features.")
        }
        let database = accounts.database
        let service = PasskeyService(settings: self, store: database.map(PasskeyStore.init), accountsPrefix: accounts.prefix, logger: app.logger)
        app.register(service)
        if let database { app.addPreparation("migrations: passkeys") { try await database.migrate(PasskeyStore.migrations) } }
        app.addBuiltInTemplates(PasskeyTemplates.all)
        app.addTemplateValue("passkeysPath") { request in database == nil ? nil : request.url(service.pagePath) }
        app.get(service.scriptPath) { request in try PasskeyScript.send(request) }
        PasskeyAccountRoutes(service: service, accounts: accounts).install(in: app)
        PasskeyConfirmationRoutes(service: service, accounts: accounts).install(in: app)
        PasskeySignInRoutes(service: service).install(in: app)
        PasskeySecondStepRoutes(service: service).install(in: app)
        app.register(SecondStepAlternative { request, username in await service.secondStep(request, for: username) })
        app.addSignInPageAddition(SignInPageAddition(scriptPath: service.scriptPath, usernameAutocomplete: "webauthn") { request in
            PasskeySignInButton.signIn(request, service)
        })
        if let store = service.store {
            PasskeyUserAdmin(store: store).install(in: app, usersPath: accounts.usersPath)
            app.onAccessEnded("passkeys") { request, username in try await PasskeyUserAdmin.removeAll(of: username, store: store, request) }
        }
    }

    /// Deletes `username`'s passkeys.
    public func forget(_ username: String, in database: Database) async throws {
        _ = try await endAccess(of: username, in: database)
    }

    /// Deletes `username`'s passkeys: a passkey added before a password reset must not outlive it.
    public func endAccess(of username: String, in database: Database) async throws -> EndedAccess? {
        try await database.migrate(PasskeyStore.migrations)
        return EndedAccess(event: ActivityEvent.Kind.passkeyRemoved, count: try await PasskeyStore(database).removeAll(of: username))
    }

    /// Moves `username`'s passkeys to `newName`. Nothing in a passkey is bound to the name:
    /// sign-in finds it by its credential and checks its user handle, which is random; only
    /// the name the authenticator shows the person stays the old one until they add another.
    public func carry(_ username: String, to newName: String, in database: Database) async throws {
        try await PasskeyStore(database).carry(username, to: newName)
    }
}
