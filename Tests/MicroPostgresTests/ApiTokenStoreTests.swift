import Foundation
import Micro
import MicroPostgres
import MicroTestSupport
import MicroTesting
import Synchronization
import Testing

extension MicroPostgresTests {
    /// API tokens over a shared database: the store against SQLite and PostgreSQL, and two
    /// instances of an app over one PostgreSQL.
    @Suite struct ApiTokenStores {
        private func token(_ index: Int, user: String = "ann", at time: Int64, days: Int64 = 90) -> ApiToken {
            ApiToken(
                id: "id-\(user)-\(index)", digest: ApiTokenSecret.digest(of: "micro_token-\(user)-\(index)"), username: user,
                name: "token \(index) <b>'\"", createdAt: time, expiresAt: time + days * 86_400)
        }

        @Test(arguments: TestDatabaseKind.available)
        func tokensAreSharedBoundedRevokedOnceAndPruned(_ kind: TestDatabaseKind) async throws {
            try await kind.with(instances: 2) { (databases: [Database]) async throws in
                for database in databases { try await database.migrate(DatabaseApiTokenStore.migrations) }
                let one = DatabaseApiTokenStore(databases[0]), two = DatabaseApiTokenStore(databases[1])
                let now: Int64 = 1_700_000_000
                #expect(try await one.add(token(0, at: now, days: 1), limit: 50, now: now))
                for index in 1..<50 { #expect(try await one.add(token(index, at: now + Int64(index)), limit: 50, now: now)) }
                #expect(try await two.add(token(50, at: now + 60), limit: 50, now: now + 60) == false, "the 51st live token")
                #expect(try await two.add(token(0, user: "bob", at: now), limit: 50, now: now), "another user's budget")
                let found = try #require(try await two.token(digest: ApiTokenSecret.digest(of: "micro_token-ann-3")))
                #expect(found == token(3, at: now + 3))
                #expect(try await two.token(digest: ApiTokenSecret.digest(of: "micro_nothing")) == nil)
                #expect(try await two.tokens(of: "ann", now: now + 100).map(\.id).prefix(2) == ["id-ann-49", "id-ann-48"])
                // Revoked on one instance, seen revoked on the other; once only; not another's.
                #expect(try await one.revoke(id: "id-ann-3", of: "bob", now: now + 100) == nil)
                #expect(try await one.revoke(id: "id-ann-3", of: "ann", now: now + 100)?.revokedAt == now + 100)
                #expect(try await two.revoke(id: "id-ann-3", of: "ann", now: now + 101) == nil)
                #expect(try await two.token(digest: found.digest)?.isLive(at: now + 101) == false)
                #expect(try await two.tokens(of: "ann", now: now + 101).count == 49)
                // Used: noted at most once a minute.
                try await one.touch(id: "id-ann-4", now: now + 200)
                try await two.touch(id: "id-ann-4", now: now + 259)
                #expect(try await one.tokens(of: "ann", now: now + 300).first { $0.id == "id-ann-4" }?.lastUsedAt == now + 200)
                try await two.touch(id: "id-ann-4", now: now + 260)
                #expect(try await one.tokens(of: "ann", now: now + 300).first { $0.id == "id-ann-4" }?.lastUsedAt == now + 260)
                // A day on, the expired and the revoked ones stop counting, and are deleted.
                let later = now + 86_400
                #expect(try await two.add(token(51, at: later), limit: 50, now: later))
                #expect(try await two.add(token(52, at: later), limit: 50, now: later))
                #expect(try await one.add(token(53, at: later), limit: 50, now: later) == false)
                let rows = try await databases[0].sql.select().column("id").from("micro_api_tokens").where("username", .equal, "ann").all()
                #expect(rows.count == 50)
            }
        }
    }

    /// Tokens made before scopes were kept: the migration makes them read-write, as they were;
    /// new ones keep the scopes they were made with.
    @Suite struct ApiTokenScopeMigration {
        @Test(arguments: TestDatabaseKind.available)
        func tokensFromBeforeScopesAreReadWrite(_ kind: TestDatabaseKind) async throws {
            try await kind.with { (databases: [Database]) async throws in
                let database = databases[0]
                try await database.migrate(Array(DatabaseApiTokenStore.migrations.prefix(1)))
                let now: Int64 = 1_700_000_000
                try await database.sql.insert(into: "micro_api_tokens")
                    .columns("id", "digest", "username", "name", "created_at", "last_used_at", "expires_at", "revoked_at")
                    .values(
                        SQLBind("old"), SQLBind(ApiTokenSecret.digest(of: "micro_old")), SQLBind("ann"), SQLBind("cron"), SQLBind(now),
                        SQLBind(Int64(0)), SQLBind(now + 86_400), SQLBind(Int64(0))
                    ).run()
                try await database.migrate(DatabaseApiTokenStore.migrations)
                let store = DatabaseApiTokenStore(database)
                #expect(try await store.token(digest: ApiTokenSecret.digest(of: "micro_old"))?.scopes == ["write"])
                let made = ApiToken(
                    id: "new", digest: ApiTokenSecret.digest(of: "micro_new"), username: "ann", name: "deployer", createdAt: now + 1,
                    expiresAt: now + 86_400, scopes: ["read", "deploy", "notes:export"])
                #expect(try await store.add(made, limit: 50, now: now + 1))
                #expect(try await store.tokens(of: "ann", now: now + 2).map(\.scopes) == [["read", "deploy", "notes:export"], ["write"]])
                // A row damaged by hand fails closed: read-only, names outside the rule dropped.
                try await database.sql.update("micro_api_tokens").set("scopes", to: "Write  deploy \u{202E}x").where("id", .equal, "new").run()
                #expect(try await store.token(digest: made.digest)?.scopes == ["read", "deploy"])
            }
        }
    }

    /// A token revoked on one instance is refused on the other.
    @Suite(.enabled(if: PostgresTestDatabase.available, PostgresTestDatabase.skipNote)) struct ApiTokenSharing {
        final class Clock: Sendable {
            private let time = Mutex(Date(timeIntervalSince1970: 1_700_000_000))
            var now: Date { time.withLock { $0 } }
            func advance(seconds: Double) { time.withLock { $0 += seconds } }
        }

        private func makeApp(_ stores: SharedStores, clock: Clock) -> App {
            var settings = Settings()
            settings.environment = .test
            settings.accessLog = false
            settings.port = 0
            settings.views = nil
            settings.sessions.revocations = stores.revocations
            settings.clock = { clock.now }
            let app = App(settings: settings, logger: PostgresTestDatabase.quiet)
            var authentication = Authentication(users: stores.users)
            authentication.throttleStore = stores.throttle
            authentication.hasher = PasswordHasher(threads: 1)
            authentication.passwordCost = 4
            app.use(authentication)
            app.use(Accounts(database: stores.database.database))
            app.get("/me") { request in try request.authenticate().username }
            return app
        }

        private static func bearer(_ token: String) -> HttpHeaders {
            ["Accept": "application/json", "Authorization": "Bearer " + token]
        }

        @Test func aTokenRevokedOnOneInstanceIsRefusedOnTheOther() async throws {
            try await PostgresTestDatabase.withInstances(2) { _, instances in
                let one = instances[0], two = instances[1]
                try await one.users.save(username: "ann", passwordHash: TestHashes.annPassword, name: nil)
                let stamp = CredentialStamp(username: "ann", passwordHash: TestHashes.annPassword)
                #expect(await eventually { two.users.isCurrent(stamp, username: "ann") })
                let clock = Clock()
                let appOne = makeApp(one, clock: clock), appTwo = makeApp(two, clock: clock)
                let browser = TestClient(appOne)
                _ = try await browser.signIn("ann", "ann-password")
                let made = try await browser.post("/account/tokens", form: ["name": "shared", "current_password": "ann-password"])
                let range = try #require(made.text.range(of: #"data-token="micro_[A-Za-z0-9_-]+""#, options: .regularExpression))
                let token = String(made.text[range].dropFirst("data-token=\"".count).dropLast())
                // Made on one, it works on both (and is now in the other's memory).
                let script = TestClient(appTwo)
                #expect(try await script.get("/me", headers: Self.bearer(token)).text == "ann")
                #expect(try await TestClient(appOne).get("/me", headers: Self.bearer(token)).text == "ann")
                let listed = try await browser.get("/account/tokens", headers: ["Accept": "application/json"]).decode([ListedApiToken].self)
                let id = try #require(listed.first?.id)
                #expect(try await browser.post("/account/tokens/\(id)/revoke", form: [:]).status == .seeOther)
                // At once where it was revoked; on the other once its memory of the look-up lapses.
                #expect(try await TestClient(appOne).get("/me", headers: Self.bearer(token)).status == .unauthorized)
                clock.advance(seconds: 5)
                #expect(try await script.get("/me", headers: Self.bearer(token)).status == .unauthorized)
                // Wrong tokens counted on one instance count on the other: the throttle is shared
                // (the two refusals above were the first two of the address's 20).
                let guesser = TestClient(appOne)
                for attempt in 0..<18 {
                    let client = attempt.isMultiple(of: 2) ? guesser : TestClient(appTwo)
                    #expect(try await client.get("/me", headers: Self.bearer(token)).status == .unauthorized)
                }
                #expect(try await TestClient(appTwo).get("/me", headers: Self.bearer(token)).status == .tooManyRequests)
            }
        }
    }
}
