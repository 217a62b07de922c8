import MicroAuth
import MicroCore

// The steps of `Accounts.install`, in the order it takes them.
extension Accounts {
    /// What is wrong with these settings, for the app's start-up problems.
    var settingsProblems: [String] {
        var problems: [String] = []
        // Counted in whole seconds: a shorter one would close what it should keep open.
        let linkSeconds = setupLinkLifetime.components.seconds
        if !Self.setupLinkLifetimes.contains(linkSeconds) {
            problems.append("Accounts.setupLinkLifetime is \(setupLinkLifetime); it must be from \(Self.setupLinkLifetimes.lowerBound) to \(Self.setupLinkLifetimes.upperBound) seconds.")
        }
        if adminProofLifetime < .seconds(1) { problems.append("Accounts.adminProofLifetime is \(adminProofLifetime); it must be at least a second.") }
        if let mail { problems += mail.settingsProblems }
        // Each feature adds its routes and steps once: a second of a kind would clash with them.
        let kinds = features.map { String(describing: type(of: $0)) }
        for kind in Set(kinds) where kinds.filter({ $0 == kind }).count > 1 {
            problems.append("Accounts.features holds \(kind) more than once; each feature belongs there once.")
        }
        return problems
    }

    /// The service the pages and other plugins find, listening to the sign-in flow (for the
    /// audit and the sessions' registry); Accounts needs Authentication's.
    func registerServices(_ service: AccountsService, in app: App) {
        app.register(service)
        // An Accounts installed again replaces the first, as its service does: one audit.
        app.addSignInListener(service)
        app.require(AuthenticationService.self, problem: "Accounts needs Authentication: app.use(Authentication(users: ...)) as well.")
    }

    /// The sessions', activity's and app events' tables, made before the first request.
    func migrateTables(in app: App) {
        if let database = (sessions as? DatabaseSessionRegistry)?.database {
            app.addPreparation("migrations: sessions, activity") {
                try await database.migrate(DatabaseSessionRegistry.migrations + DatabaseActivityLog.migrations)
            }
        }
        if let database = (setupLinks as? DatabaseSetupLinkStore)?.database {
            app.addPreparation("migrations: set-up links") { try await database.migrate(DatabaseSetupLinkStore.migrations) }
        }
        if let database = (appEvents as? DatabaseAppEventLog)?.database {
            app.addPreparation("migrations: app events") { try await database.migrate(DatabaseAppEventLog.migrations) }
        }
    }

    /// The admin's users page (``usersPath``).
    func addUsersPage(_ service: AccountsService, in app: App) {
        app.addBuiltInTemplates(["admin/users": UsersTemplates.users])
        app.addBuiltInTemplates(SetupLinkTemplates.all)
        SetupLinkRoutes(service: service).install(in: app)
        if let mail, let queue = service.mailQueue {
            ForgotPasswordRoutes(service: service, mail: mail, queue: queue).install(in: app)
        }
        UserAdminRoutes(service: service).install(in: app)
    }

    /// The user's own pages (password, sessions, activity) and the app events', with the
    /// filter that notes when each session was last seen.
    func addAccountPages(_ service: AccountsService, in app: App) {
        app.addBuiltInTemplates(AccountTemplates.all)
        let prefix = prefix
        app.addTemplateValue("accountPath") { request in request.url(prefix) }
        // "Last seen", at most once a minute per session; only for requests with a cookie.
        app.before { request in
            if request.cookie(request.sessionSettings.cookieName) != nil { service.seen(request) }
        }
        PasswordChangeRequirement(settings: self).install(in: app)
        AccountRoutes(service: service).install(in: app)
        AppEventRoutes(service: service).install(in: app)
    }
}
