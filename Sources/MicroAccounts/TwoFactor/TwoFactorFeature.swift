import MicroAuth
import MicroCore

/// Installs the second factor with the account pages (``Accounts``): its tables, the data
/// key's checks, the sign-in step, the pages, and the requirement when the app sets one.
enum TwoFactorFeature {
    static func install(_ settings: TwoFactorSettings, database: Database?, accounts: AccountsService, prefix: String, in app: App) {
        // Required with nowhere to keep it, no one who must have it could ever turn it on: every
        // page but the two-factor one would be closed to them. Said at start, not found later.
        if settings.requiredForRoles != nil, database == nil {
            app.addProblem("accounts.twoFactor.requiredForRoles needs the account pages' database (Accounts(database:)): without it, two-factor sign-in cannot be turned on.")
        }
        let store = database.map(TwoFactorStore.init)
        let service = TwoFactorService(settings: settings, store: store, accountsPrefix: prefix, logger: app.logger)
        app.register(service)
        app.setSignInStep(service)
        let key = settings.dataKey
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
        app.addTemplateValue("twoFactorPath") { request in request.url(prefix + "/two-factor") }
        TwoFactorSignInRoutes(service: service).install(in: app)
        let routes = TwoFactorAccountRoutes(service: service, accounts: accounts)
        routes.install(in: app)
        if settings.requiredForRoles != nil { TwoFactorRequirement(service: service, routes: routes).install(in: app) }
    }
}
