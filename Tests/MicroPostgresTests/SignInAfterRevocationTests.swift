import Foundation
import Micro
import MicroPostgres
import MicroTestSupport
import MicroTesting
import Testing

extension MicroPostgresTests {
    /// An admin's action ends the sessions that existed when it was made, and never one begun
    /// after it, however soon after: on SQLite, and on two instances sharing PostgreSQL. The
    /// clock stands still where it must tell the two apart by the order they came in, and moves
    /// within one second where it need not.
    @Suite struct SignInAfterRevocation {
        /// The users page's forms that end a user's sessions.
        enum Action: String, CaseIterable, CustomTestStringConvertible, Sendable {
            case endSessions = "sign-out", setPassword = "password", disable = "disable"

            var testDescription: String { rawValue }
        }

        /// An instance's app over `stores`, on `clock`.
        private func app(_ stores: AppStores, clock: TestClock) -> App {
            var settings = Settings()
            settings.environment = .test
            settings.accessLog = false
            settings.views = nil
            settings.clock = { clock.now }
            let app = App(settings: settings, logger: PostgresTestDatabase.quiet)
            app.use(stores)
            var authentication = Authentication(stores: stores)
            authentication.hasher = PasswordHasher(threads: 1)
            authentication.passwordCost = 4
            app.use(authentication)
            app.use(Accounts(stores: stores))
            app.get("/me") { request in request.currentUser?.username ?? "nobody" }
            return app
        }

        /// Runs `body` with one instance's stores over a new SQLite file, or two instances'
        /// over a new PostgreSQL database, and a way to open them again (a restart); closes
        /// them all and removes the data after, whatever happened.
        private func withInstances(_ kind: TestDatabaseKind, _ body: ([AppStores], () async throws -> AppStores) async throws -> Void) async throws {
            let folder = try TemporaryFolder()
            defer { folder.remove() }
            let test = kind == .postgres ? try await PostgresTestDatabase.make() : nil
            let environment = test.map { ["MICRO_DATABASE_URL": $0.url] } ?? [:]
            var opened: [AppStores] = []
            let open = { () async throws -> AppStores in
                let stores = try await AppStores.open(file: folder.file("app.db"), environment: environment)
                opened.append(stores)
                return stores
            }
            do {
                var instances = [try await open()]
                if kind == .postgres { instances.append(try await open()) }
                try await body(instances, open)
            } catch {
                Issue.record(error)
            }
            for stores in opened { await stores.shutdown() }
            await test?.drop()
        }

        /// Whether every instance holds a revocation of `user`'s sessions begun at or before
        /// `instant` (milliseconds since 1970).
        private func known(_ apps: [App], before instant: Int64) async -> Bool {
            await eventually {
                apps.allSatisfy { $0.settings.sessions.revocations.isRevoked(username: "user", created: instant) }
            }
        }

        /// What `cookie` opens on `app`: the user's name, or `nobody`.
        private func whoIs(_ cookie: String, on app: App) async throws -> String {
            let client = TestClient(app)
            client.setCookie("micro.session", cookie)
            return try await client.get("/me").text
        }

        @Test(arguments: TestDatabaseKind.available, Action.allCases)
        func aSignInInTheSameSecondAsAnAdminsActionStands(_ kind: TestDatabaseKind, _ action: Action) async throws {
            try await withInstances(kind) { instances, restart in
                let users = try #require(instances[0].users as? any ManagedUserStore)
                #expect(try await users.addUser(username: "ann", name: nil, roles: ["admin"], passwordHash: TestHashes.annPassword))
                #expect(try await users.addUser(username: "user", name: nil, roles: [], passwordHash: TestHashes.secret123))
                // The real time (the activity log keeps 90 days of it), a tenth into its second:
                // everything below happens within that second.
                let start = Date().timeIntervalSince1970.rounded(.down) + 0.1
                let clock = TestClock(Date(timeIntervalSince1970: start))
                let apps = instances.map { app($0, clock: clock) }
                // The admin on the first instance; the user's browsers on every one.
                let admin = TestClient(apps[0])
                try await admin.signIn("ann", "ann-password")
                try await admin.confirmAdmin("ann-password")
                var before: [String] = []
                for app in apps {
                    let browser = TestClient(app)
                    try await browser.signIn("user", "secret123")
                    #expect(try await eventually { try await browser.get("/me").text == "user" })
                    before.append(try #require(browser.cookies["micro.session"]?.value))
                }

                let password: String
                switch action {
                case .endSessions:
                    password = "secret123"
                    #expect(try await admin.post("/admin/users/sign-out", form: ["username": "user"]).status == .seeOther)
                case .setPassword:
                    password = "a fresh start 9"
                    #expect(try await admin.post("/admin/users/password", form: ["username": "user", "new_password": password]).status == .seeOther)
                    // The password is marked as the admin's, to be changed; lifted here in the
                    // store (the same hash) so that the sessions below reach every page.
                    let hash = try #require(try await users.find(username: "user", using: .shared)).passwordHash
                    #expect(try await users.replaceOwnPasswordHash(of: "user", hash, with: hash))
                case .disable:
                    password = "secret123"
                    #expect(try await admin.post("/admin/users/disable", form: ["username": "user"]).status == .seeOther)
                    #expect(try await admin.post("/admin/users/enable", form: ["username": "user"]).status == .seeOther)
                }
                let revokedAt = Int64(clock.now.timeIntervalSince1970 * 1000)
                #expect(await known(apps, before: revokedAt))
                for app in apps {
                    for cookie in before { #expect(try await eventually { try await whoIs(cookie, on: app) == "nobody" }) }
                }

                // Signed in again on each instance, in the same millisecond: each session stands,
                // there and on the other instance (once it has heard of the user's new state: a
                // revoked session would never open again), request after request.
                var after: [String] = []
                for app in apps {
                    let browser = TestClient(app)
                    try await browser.signIn("user", password)
                    after.append(try #require(browser.cookies["micro.session"]?.value))
                }
                for app in apps {
                    for cookie in after {
                        #expect(try await eventually { try await whoIs(cookie, on: app) == "user" })
                        #expect(try await whoIs(cookie, on: app) == "user")
                    }
                }

                // Ended again later in the second: the sessions just begun existed then, and end.
                clock.advance(seconds: 0.2)
                #expect(try await admin.post("/admin/users/sign-out", form: ["username": "user"]).status == .seeOther)
                let endedAgainAt = Int64(clock.now.timeIntervalSince1970 * 1000)
                // A sign-in later still in that second, on the last instance at once (before it
                // may have heard of the revocation): it stands once every instance has.
                clock.advance(seconds: 0.2)
                let browser = TestClient(apps[apps.count - 1])
                try await browser.signIn("user", password)
                let latest = try #require(browser.cookies["micro.session"]?.value)
                #expect(await known(apps, before: endedAgainAt))
                for app in apps {
                    for cookie in before + after { #expect(try await eventually { try await whoIs(cookie, on: app) == "nobody" }) }
                    #expect(try await whoIs(latest, on: app) == "user")
                }
                // The sessions page lists it, as the live session it is.
                let listed = try await browser.get("/account/sessions", headers: ["Accept": "application/json"]).text
                #expect(listed.contains(#""current":true"#))

                // Restarted: the new instance reads the revocations from PostgreSQL. (With SQLite
                // they are kept in memory, which a restart forgets: only what the user's stamp
                // ended, the old password, stays ended there.)
                let restarted = app(try await restart(), clock: clock)
                #expect(try await whoIs(latest, on: restarted) == "user")
                if kind == .postgres || action == .setPassword {
                    for cookie in before { #expect(try await whoIs(cookie, on: restarted) == "nobody") }
                }
                if kind == .postgres {
                    for cookie in after { #expect(try await whoIs(cookie, on: restarted) == "nobody") }
                }
            }
        }

        /// The table as Micro made it when revocations were timed by the second.
        private static let tableInSeconds = [
            """
            CREATE TABLE micro_session_revocations (
                kind text NOT NULL, subject text NOT NULL, revoked_at bigint NOT NULL, expires_at bigint NOT NULL,
                PRIMARY KEY (kind, subject))
            """,
            """
            CREATE FUNCTION micro_revocations_changed() RETURNS trigger LANGUAGE plpgsql AS $$
            BEGIN
                PERFORM pg_notify('micro_changes',
                    'r' || NEW.kind || ' ' || NEW.revoked_at || ' ' || NEW.expires_at || ' ' || NEW.subject);
                RETURN NULL;
            END $$
            """,
            """
            CREATE TRIGGER micro_revocations_changed AFTER INSERT OR UPDATE ON micro_session_revocations
                FOR EACH ROW EXECUTE FUNCTION micro_revocations_changed()
            """,
        ]

        @Test(.enabled(if: PostgresTestDatabase.available, PostgresTestDatabase.skipNote))
        func aTableOfRevocationsTimedBySecondsEndsWhatItEndedAndNoMore() async throws {
            let test = try await PostgresTestDatabase.make()
            do {
                let second = Int64(Date().timeIntervalSince1970) - 10
                for statement in Self.tableInSeconds { try await test.sql(statement) }
                try await test.sql("INSERT INTO micro_session_revocations VALUES ('user', 'user', \(second), \(second + 3600))")
                try await test.sql("INSERT INTO micro_session_revocations VALUES ('all', '', \(second - 60), 9223372036854775807)")
                let one = try await SharedStores.connect(test.url)
                defer { one.database.shutdown() }
                // Every session begun in that second stays ended, as it was; one begun after it
                // stands. Opened again, the table is left as it is.
                let two = try await SharedStores.connect(test.url)
                defer { two.database.shutdown() }
                for stores in [one, two] {
                    #expect(stores.revocations.isRevoked(username: "user", created: second * 1000))
                    #expect(stores.revocations.isRevoked(username: "user", created: second * 1000 + 999))
                    #expect(!stores.revocations.isRevoked(username: "user", created: second * 1000 + 1000))
                    #expect(stores.revocations.isRevoked(id: "any", created: (second - 60) * 1000 + 999))
                    #expect(!stores.revocations.isRevoked(id: "any", created: (second - 59) * 1000))
                }
                // A new revocation goes through the renamed column and the trigger to the other
                // instance at its millisecond.
                let now = Int64(Date().timeIntervalSince1970 * 1000)
                let instant = one.revocations.revokeSessions(of: "ann", at: now, until: now / 1000 + 3600, now: now / 1000)
                #expect(await eventually { two.revocations.isRevoked(username: "ann", created: instant) })
                #expect(!two.revocations.isRevoked(username: "ann", created: instant + 1))
            } catch {
                Issue.record(error)
            }
            await test.drop()
        }
    }
}
