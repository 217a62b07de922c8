import Foundation
import Micro
import MicroAccounts
import MicroAuth
import MicroCore
import MicroTestSupport
import MicroTesting
import Testing

/// What plugins hook into and read: their settings' bounds, the variables the settings keep,
/// and the sign-in flow's listeners.
@Suite struct PluginHooksTests {
    private func startupError(_ app: App) async -> ConfigurationError? {
        do {
            _ = try await TestClient(app).get("/")
            return nil
        } catch {
            return error as? ConfigurationError
        }
    }

    /// The throttle and the account pages count in whole seconds: a shorter setting would turn
    /// the throttle off or close the second step at once, so it stops start-up, named.
    @Test func aDurationUnderASecondIsAStartUpErrorNamingTheSetting() async throws {
        let folder = try TemporaryFolder()
        defer { folder.remove() }
        let throttled = isolatedApp()
        var authentication = Authentication(users: try UserStoreKind.yaml.make(in: folder))
        authentication.throttleLimits.window = .milliseconds(500)
        throttled.use(authentication)
        let error = await startupError(throttled)
        #expect(error?.message.contains("Authentication.throttleLimits.window") == true)

        for change in [{ (accounts: inout Accounts) in accounts.adminProofLifetime = .milliseconds(10) },
                       { (accounts: inout Accounts) in accounts.twoFactor.stepLifetime = .zero }] {
            let app = isolatedApp()
            app.use(Authentication(users: try UserStoreKind.yaml.make(in: folder)))
            var accounts = Accounts()
            change(&accounts)
            app.use(accounts)
            let refused = await startupError(app)
            #expect(refused?.message.contains("it must be at least a second") == true)
        }
        let app = isolatedApp()
        app.use(Authentication(users: try UserStoreKind.yaml.make(in: folder)))
        var accounts = Accounts()
        accounts.setupLinkLifetime = .seconds(10)
        app.use(accounts)
        #expect(await startupError(app)?.message.contains("Accounts.setupLinkLifetime is 10.0 seconds; it must be from 60 to 2592000 seconds.") == true)
    }

    /// Only Micro's own variables: other services' passwords in the environment stay out of
    /// settings every route can read.
    @Test func theSettingsKeepOnlyMicrosVariables() throws {
        let settings = try Settings.fromProcess(["MICRO_DATA_KEY": "k", "DATABASE_PASSWORD": "p", "AWS_SECRET_ACCESS_KEY": "s"])
        #expect(settings.variables == ["MICRO_DATA_KEY": "k"])
    }

    /// Accounts installed twice replaces the first, as its service does: each sign-in is
    /// recorded once, by the service the app serves with.
    @Test func accountsInstalledTwiceRecordsEachSignInOnce() async throws {
        let folder = try TemporaryFolder()
        defer { folder.remove() }
        let app = isolatedApp()
        app.use(try UserStoreKind.yaml.authentication(in: folder))
        let first = Accounts()
        let second = Accounts()
        app.use(first)
        app.use(second)
        app.get("/") { _ in "home" }
        try await TestClient(app).signIn("user", "secret123")

        let recorded = try await second.activity.events(of: "user", offset: 0, limit: 10).filter { $0.event == "signed_in" }
        #expect(recorded.count == 1)
        #expect(try await first.activity.events(of: "user", offset: 0, limit: 10).isEmpty)
    }
}
