import MicroAuth
import MicroCore

extension Accounts {
    /// The token pages, and with a store, its table and `Authorization: Bearer`.
    func installApiTokens(in app: App, accounts: AccountsService) {
        app.addBuiltInTemplates(ApiTokenTemplates.all)
        for problem in ApiTokenScopeChoice.problems(apiTokens) { app.addProblem(problem) }
        var service: ApiTokenService?
        if let store = apiTokens.store {
            let tokens = ApiTokenService(apiTokens, store: store, logger: app.logger)
            app.register(tokens)
            if let database = (store as? DatabaseApiTokenStore)?.database {
                app.addPreparation("migrations: API tokens") { try await database.migrate(DatabaseApiTokenStore.migrations) }
            }
            app.addCredentialCheck("API token (Bearer)") { request in try await tokens.accept(request) }
            app.onAccessEnded("API tokens") { request, username in try await tokens.revokeAll(of: username, now: request.session.now) }
            app.addCredentialScheme(CredentialScheme(
                name: "Bearer", challenge: "Bearer realm=\"\(apiTokens.realm)\"", phrase: "an API token (Authorization: Bearer)"))
            service = tokens
        }
        ApiTokenRoutes(accounts: accounts, service: service).install(in: app)
    }
}
