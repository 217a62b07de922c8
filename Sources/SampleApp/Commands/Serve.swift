import ArgumentParser
import Foundation
import Micro
import MicroPostgres

/// Serves the app until Ctrl-C.
struct Serve: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        abstract: "Serve the app (HOST, PORT, MICRO_ENV, MICRO_CREDENTIALS, MICRO_USERS_DB, MICRO_DATABASE_URL, MICRO_DATA_KEY, MICRO_OIDC_*, MICRO_PROXY_*, MICRO_PASSWORD_SIGNIN).")

    func run() async throws {
        let (app, stores) = await Self.setUpApp()
        // A start-up failure (a port in use) exits from inside `run()`, with the stores open:
        // the process ends there.
        try await app.run()
        await stores?.shutdown()
    }

    /// The app set up from the environment, over its stores when it has a users table; exits
    /// with the reason when the settings are wrong.
    static func setUpApp() async -> (App, AppStores?) {
        let variables = ProcessInfo.processInfo.environment
        let app = App()
        // A users table (PostgreSQL, or the SQLite file MICRO_USERS_DB) keeps the sessions,
        // events and single sign-on's links beside the users; credentials.yml keeps them in memory.
        let stores = await app.configure { () async throws(ConfigurationError) -> AppStores? in
            guard let file = UserSource.tableFile(variables) else { return nil }
            return try await AppStores.open(file: file, create: false, environment: variables)
        }
        let singleSignOn = await app.configure { () async throws -> SingleSignOnSettings in
            var settings = try SingleSignOnSettings.fromEnvironment(variables)
            try await settings.keepLinks(in: stores?.database)
            return settings
        }
        let users: any UserStore
        var accounts = Accounts()
        if let stores {
            app.use(stores)
            users = stores.users
            accounts = Accounts(stores: stores)
            // SCIM provisioning writes users: only a table can take it. Over credentials.yml,
            // which is edited by hand, /scim/v2 is not there at all.
            accounts.scim = ScimProvisioning()
        } else {
            users = app.configure { try UserSource.yaml(variables) }
        }
        accounts.setupLinkLifetime = app.configure { () throws(ConfigurationError) in try Accounts.setupLinkLifetime(variables) }
        // MICRO_SMTP_URL and MICRO_MAIL_FROM: invitations mailed, and "forgot password".
        accounts.mail = app.configure { () throws(ConfigurationError) in try AccountMail.fromProcess(variables) }
        let trustedProxies = app.settings.trustedProxies
        let signInProxy = app.configure { () throws(ConfigurationError) -> (any AppPlugin)? in
            try SignInProxySettings.fromEnvironment(variables, trustedProxies: trustedProxies)
        }
        SampleRoutes.install(
            in: app, users: users, throttleStore: stores?.throttleStore, accounts: accounts, singleSignOn: singleSignOn, signInProxy: signInProxy)
        return (app, stores)
    }
}
