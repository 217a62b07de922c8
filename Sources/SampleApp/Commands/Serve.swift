import ArgumentParser
import Foundation
import Micro

/// Serves the app until Ctrl-C.
struct Serve: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        abstract: "Serve the app (HOST, PORT, MICRO_ENV, MICRO_CREDENTIALS, MICRO_USERS_DB, MICRO_DATABASE_URL, MICRO_DATA_KEY, MICRO_OIDC_*, MICRO_PASSWORD_SIGNIN).")

    func run() async throws {
        let variables = ProcessInfo.processInfo.environment
        let users: any UserStore
        let shared: SharedDatabase?
        var accounts = Accounts()
        var singleSignOn: SingleSignOnSettings
        do {
            singleSignOn = try SingleSignOnSettings.fromEnvironment(variables)
            shared = try await SharedDatabase.fromEnvironment(variables)
            users = try shared?.users ?? UserSource.fromEnvironment(variables)
            // Sessions, events and single sign-on's links beside the users where they are in a
            // table; else in memory.
            var database: Database?
            if let shared {
                database = shared.database.database
            } else if let file = variables["MICRO_USERS_DB"], !file.isEmpty {
                database = try await Database.sqlite(path: file)
            }
            if let database {
                accounts = Accounts(database: database)
                try await singleSignOn.keepLinks(in: database)
            }
        } catch {
            FileHandle.standardError.write(Data("SampleApp cannot start: \(error)\n".utf8))
            throw ExitCode.failure
        }
        defer { shared?.database.shutdown() }
        let app = App()
        if let shared { app.settings.sessions.revocations = shared.revocations }
        SampleRoutes.install(in: app, users: users, throttleStore: shared?.throttle, accounts: accounts, singleSignOn: singleSignOn)
        try await app.run()
    }
}
