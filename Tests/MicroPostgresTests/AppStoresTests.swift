import Foundation
import Micro
import MicroPostgres
import MicroTestSupport
import MicroTesting
import Testing

extension MicroPostgresTests {
    /// `AppStores` with `MICRO_DATABASE_URL`: every store in PostgreSQL, shared by the instances.
    @Suite(.enabled(if: PostgresTestDatabase.available, PostgresTestDatabase.skipNote)) struct OneCallStores {
        private func app(_ stores: AppStores) -> App {
            var settings = Settings()
            settings.environment = .test
            settings.accessLog = false
            settings.views = nil
            let app = App(settings: settings, logger: PostgresTestDatabase.quiet)
            app.use(stores)
            var authentication = Authentication(stores: stores)
            authentication.hasher = PasswordHasher(threads: 1)
            app.use(authentication)
            app.use(Accounts(stores: stores))
            app.get("/me") { request in request.currentUser?.username ?? "nobody" }
            return app
        }

        @Test func theUrlGivesEveryStoreAndTheInstancesShareThem() async throws {
            let test = try await PostgresTestDatabase.make()
            let folder = try TemporaryFolder()
            defer { folder.remove() }
            let environment = ["MICRO_DATABASE_URL": test.url]
            let one = try await AppStores.open(file: folder.file("unused.db"), environment: environment)
            let two = try await AppStores.open(file: folder.file("unused.db"), environment: environment)
            do {
                #expect(one.users is PostgresUserStore && one.throttleStore != nil && one.revocations != nil)
                #expect(!FileManager.default.fileExists(atPath: folder.file("unused.db")))
                let users = try #require(one.users as? PostgresUserStore)
                try await users.save(username: "user", passwordHash: TestHashes.secret123, name: nil)
                let stamp = CredentialStamp(username: "user", passwordHash: TestHashes.secret123)
                #expect(await eventually { two.users.isCurrent(stamp, username: "user") })
                let appOne = app(one), appTwo = app(two)
                // A sign-out on one instance ends the session on the other (the revocations).
                let browser = TestClient(appOne)
                #expect(try await signIn(browser).location == "/")
                let cookie = try #require(browser.cookies["micro.session"]?.value)
                let elsewhere = TestClient(appTwo)
                elsewhere.setCookie("micro.session", cookie)
                #expect(try await elsewhere.get("/me").text == "user")
                #expect(try await elsewhere.post("/signout", form: [:]).location == "/")
                let replay = TestClient(appOne)
                replay.setCookie("micro.session", cookie)
                #expect(try await eventually { try await replay.get("/me").text == "nobody" })
                // Failures on both instances count together (the throttle).
                for attempt in 0..<5 {
                    #expect(try await signIn(TestClient(attempt.isMultiple(of: 2) ? appOne : appTwo), "user", "wrong").location == "/signin")
                }
                #expect(try await signIn(TestClient(appTwo)).status == .tooManyRequests)
            } catch {
                Issue.record(error)
            }
            await one.shutdown()
            await two.shutdown()
            await test.drop()
        }
    }

    /// A database that cannot be reached stops start-up with a message naming the variable.
    @Test func anUnreachableDatabaseUrlIsAnErrorNamingTheVariable() async throws {
        let folder = try TemporaryFolder()
        defer { folder.remove() }
        do {
            _ = try await AppStores.open(file: folder.file("app.db"), environment: ["MICRO_DATABASE_URL": "postgres://micro:secret@127.0.0.1:1/micro"])
            Issue.record("opened an unreachable database")
        } catch {
            #expect(error.message.hasPrefix("MICRO_DATABASE_URL: "), "\(error.message)")
            #expect(!error.message.contains("secret"))
        }
        #expect(!FileManager.default.fileExists(atPath: folder.file("app.db")))
    }
}
