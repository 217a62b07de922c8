import MicroAccounts
import MicroAuth
import MicroCore

extension TwoFactorSettings: AccountFeature {
    /// Installs the second factor with the account pages: its tables, the data key's checks,
    /// the sign-in step, the pages, the users page's mark and reset, and the requirement when
    /// the app sets one.
    public func install(in app: App, accounts: Accounts) {
        // Counted in whole seconds: a shorter one would close what it should keep open.
        if stepLifetime < .seconds(1) { app.addProblem("Accounts.twoFactor.stepLifetime is \(stepLifetime); it must be at least a second.") }
        let database = accounts.database
        // Required with nowhere to keep it, no one who must have it could ever turn it on: every
        // page but the two-factor one would be closed to them. Said at start, not found later.
        if requiredForRoles != nil, database == nil {
            app.addProblem("accounts.twoFactor.requiredForRoles needs the account pages' database (Accounts(database: ...)): without it, two-factor sign-in cannot be turned on.")
        }
        let store = database.map(TwoFactorStore.init)
        let service = TwoFactorService(settings: self, store: store, accountsPrefix: accounts.prefix, logger: app.logger)
        app.register(service)
        app.setSignInStep(service)
        if let store { app.setUsersPageSecondFactor(store) }
        let key = dataKey
        app.addStartupCheck("the data key of second factors") { settings in
            guard let material = key.material(in: settings) else { return (nil, DataKey.startupWarning(settings, key)) }
            return (DataKey.problem(with: material, environment: settings.environment), nil)
        }
        // Weakly: the app keeps its preparations.
        app.addPreparation("migrations and the data key: second factors") { [weak app] in
            if let database { try await database.migrate(TwoFactorStore.migrations + DataKeyCheck.migrations) }
            if let app { try await service.prepare(app.settings) }
        }
        app.addBuiltInTemplates(TwoFactorTemplates.all)
        let prefix = accounts.prefix
        app.addTemplateValue("twoFactorPath") { request in request.url(prefix + "/two-factor") }
        TwoFactorSignInRoutes(service: service).install(in: app)
        let routes = TwoFactorAccountRoutes(service: service, accounts: accounts)
        routes.install(in: app)
        if requiredForRoles != nil { TwoFactorRequirement(service: service, routes: routes).install(in: app) }
    }

    /// Turns `username`'s second factor off, deleting its secret and recovery codes.
    public func forget(_ username: String, in database: Database) async throws {
        try await database.migrate(TwoFactorStore.migrations)
        _ = try await TwoFactorStore(database).disable(username)
    }

    /// Moves `username`'s second factor to `newName`: the secret and the codes keep the name
    /// they are bound to, so that they go on working.
    public func carry(_ username: String, to newName: String, in database: Database) async throws {
        try await TwoFactorStore(database).carry(username, to: newName)
    }
}
