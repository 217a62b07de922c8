import Foundation
import MicroAccounts
import MicroAuth
import MicroCore
import MicroPasskeys
import MicroTestSupport
import MicroTesting
import MicroTwoFactor
import Testing

/// The account pages' features through their public API alone, as an app that imports
/// `MicroAccounts` (not the umbrella) and a feature of another package use them: the pages
/// have only the features named, setting a feature's settings adds it once, and a feature of
/// one's own is installed, forgotten with a removed user and ended with a user's access.
@Suite struct AccountFeatureTests {
    /// A feature of a tool's own: badges a user holds, a page that lists them.
    private struct Badges: AccountFeature {
        let held: Locked<[String: Int]>

        func install(in app: App, accounts: Accounts) {
            app.get(accounts.prefix + "/badges") { request in
                let user = try request.authenticate()
                return "badges: \(held.withLock { $0[user.username] ?? 0 })"
            }
        }

        func forget(_ username: String, in database: Database) async throws {
            held.withLock { $0[username] = nil }
        }

        func endAccess(of username: String, in database: Database) async throws -> EndedAccess? {
            let count = held.withLock { $0.removeValue(forKey: username) ?? 0 }
            return EndedAccess(event: "badge_removed", count: count)
        }
    }

    private func withApp(_ features: (Database) -> Accounts, _ body: (App, Database) async throws -> Void) async throws {
        let folder = try TemporaryFolder()
        defer { folder.remove() }
        let app = isolatedApp()
        let users = try SqliteUserStore(path: folder.file("users.db"), create: true)
        try users.save(username: "user", passwordHash: TestHashes.secret123, name: nil)
        try users.save(username: "ann", passwordHash: TestHashes.annPassword, name: nil, roles: ["admin"])
        var authentication = Authentication(users: users)
        authentication.hasher = PasswordHasher(threads: 1)
        authentication.passwordCost = 4
        app.use(authentication)
        let database = try await Database.sqlite(path: folder.file("app.db"))
        do {
            app.use(features(database))
            try await body(app, database)
        } catch {
            await database.shutdown()
            throw error
        }
        await database.shutdown()
    }

    @Test func pagesWithoutFeaturesHaveNeitherTwoFactorNorPasskeys() async throws {
        try await withApp({ Accounts(database: $0, features: []) }) { app, _ in
            let client = TestClient(app)
            try await client.signIn("user", "secret123")
            let account = try await client.get("/account")
            #expect(account.status == .ok)
            #expect(!account.text.contains("/account/two-factor") && !account.text.contains("/account/passkeys"))
            #expect(!account.text.contains("Two-factor sign-in") && !account.text.contains(">Passkeys<"))
            #expect(try await client.get("/account/two-factor").status == .notFound)
            #expect(try await client.get("/account/passkeys").status == .notFound)
        }
    }

    @Test func settingAFeaturesSettingsAddsItOnce() async throws {
        try await withApp({ database in
            var accounts = Accounts(database: database, features: [])
            accounts.twoFactor.issuer = "First"
            accounts.twoFactor.issuer = "Tools"
            #expect(accounts.features.count == 1)
            #expect(accounts.feature(TwoFactorSettings.self)?.issuer == "Tools")
            return accounts
        }) { app, _ in
            let client = TestClient(app)
            try await client.signIn("user", "secret123")
            #expect(try await client.get("/account").text.contains("/account/two-factor"))
            let page = try await client.get("/account/two-factor")
            #expect(page.status == .ok && page.text.contains(#"data-two-factor="off""#))
        }
    }

    @Test func aFeatureOfOnesOwnIsInstalledForgottenAndEnded() async throws {
        let held = Locked(["user": 3, "other": 1])
        let badges = Badges(held: held)
        try await withApp({ Accounts(database: $0, features: [badges]) }) { app, database in
            let client = TestClient(app)
            try await client.signIn("user", "secret123")
            #expect(try await client.get("/account/badges").text == "badges: 3")

            let ended = try await AccountLeftovers.endAccess(of: "user", in: database, features: [badges])
            #expect(ended.map(\.event) == [ActivityEvent.Kind.tokenRevoked, "badge_removed"])
            #expect(ended.map(\.count) == [0, 3])
            #expect(try await client.get("/account/badges").text == "badges: 0")

            try await AccountLeftovers.forget("other", in: database, features: [badges])
            #expect(held.withLock { $0.isEmpty })
        }
    }

    /// A plugin's own header credential signs a request in, but proves no password: the users
    /// page's changes refuse it, where HTTP Basic (the password itself) passes.
    @Test func aPluginsHeaderCredentialIsNoProofForTheUsersPage() async throws {
        try await withApp({ Accounts(database: $0, features: []) }) { app, _ in
            app.addCredentialCheck("badge") { request in
                guard request.headers.first(name: "Authorization") == "Badge ann-badge" else { return }
                request.credentialsUser = User(username: "ann", roles: ["admin"])
            }
            let badge: HttpHeaders = ["Authorization": "Badge ann-badge", "Accept": "application/json"]
            let client = TestClient(app)
            #expect(try await client.get("/admin/users", headers: badge).status == .ok)
            let refused = try await client.post("/admin/users/sign-out", form: ["username": "user"], headers: badge)
            #expect(refused.status == .forbidden)
            let basic: HttpHeaders = ["Authorization": "Basic " + Data("ann:ann-password".utf8).base64EncodedString(), "Accept": "application/json"]
            let allowed = try await client.post("/admin/users/sign-out", form: ["username": "user"], headers: basic)
            #expect(allowed.status != .forbidden && allowed.status.code < 400)
        }
    }

    /// Features an app names by hand are checked at start-up: passkeys without the second
    /// factor's step they lead to, or a feature named twice, stop the start with a message.
    @Test func featuresThatCannotWorkStopTheStartNamingWhy() async throws {
        for (features, said) in [
            ([PasskeySettings()] as [any AccountFeature], "add TwoFactorSettings() to Accounts.features"),
            ([TwoFactorSettings(), TwoFactorSettings()], "holds TwoFactorSettings more than once"),
        ] {
            try await withApp({ Accounts(database: $0, features: features) }) { app, _ in
                do {
                    _ = try await TestClient(app).get("/account")
                    Issue.record("started with \(features)")
                } catch let error as ConfigurationError {
                    #expect(error.message.contains(said), "\(error.message)")
                }
            }
        }
    }
}
