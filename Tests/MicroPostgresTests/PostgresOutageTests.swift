import Foundation
import Micro
import MicroPostgres
import MicroTestSupport
import MicroTesting
import Testing

extension MicroPostgresTests {
    /// PostgreSQL stopping while the app runs: sign-in answers 503, signed-in pages go on, and
    /// sign-in works again once it is back, without a restart.
    @Suite(.enabled(if: PostgresTestDatabase.available, PostgresTestDatabase.skipNote)) struct Outage {
        /// `pg_ctl ARGUMENTS` for the test cluster, as `with-postgres.sh` exports it. Spawned
        /// directly and waited for by its PID: the server `pg_ctl start` leaves running must
        /// not hold anything the wait depends on.
        private func pgCtl(_ arguments: String) throws {
            let command = try #require(ProcessInfo.processInfo.environment["MICRO_TEST_PG_CTL"], "with-postgres.sh exports MICRO_TEST_PG_CTL")
            let words: [String] = ["/bin/sh", "-c", "\(command) \(arguments) >/dev/null 2>&1 </dev/null"]
            let argv: [UnsafeMutablePointer<CChar>?] = words.map { strdup($0) } + [nil]
            defer { for pointer in argv { free(pointer) } }
            var pid: pid_t = 0
            #expect(posix_spawn(&pid, "/bin/sh", nil, nil, argv, environ) == 0)
            var status: Int32 = 0
            while waitpid(pid, &status, 0) == -1 && errno == EINTR {}
            #expect(status == 0, "pg_ctl \(arguments)")
        }

        @Test func signInIsUnavailableWhileTheDatabaseIsDownAndWorksAgainWhenItIsBack() async throws {
            let log = LogRecorder()
            try await PostgresTestDatabase.withInstances(1, logger: log.logger) { _, instances in
                let shared = instances[0]
                try await shared.users.save(username: "user", passwordHash: TestHashes.secret123, name: nil)
                let app = shared.makeApp()
                let signedIn = TestClient(app)
                #expect(try await signIn(signedIn).location == "/")
                #expect(await eventually { shared.database.reloadCount >= 1 })
                let reloads = shared.database.reloadCount

                try pgCtl("stop -m immediate")
                var restarted = false
                defer { if !restarted { try? pgCtl("start") } }

                let refused = try await signIn(TestClient(app))
                #expect(refused.status == .serviceUnavailable)
                #expect(refused.headers.first(name: "Retry-After") != nil)
                #expect(refused.text.contains("unavailable"))
                #expect(!shared.database.isReachable)
                for _ in 0..<3 { #expect(try await signIn(TestClient(app)).status == .serviceUnavailable) }
                // A transaction while the outage is known fails at once, as a 503 like a statement.
                let started = ContinuousClock.now
                do {
                    try await shared.database.database.transaction { sql in try await sql.raw("SELECT 1").run() }
                    Issue.record("a transaction ran while the database was down")
                } catch let error as HttpError {
                    #expect(error.status == .serviceUnavailable)
                }
                #expect(ContinuousClock.now - started < .seconds(1))
                // The page path needs no database.
                #expect(try await signedIn.get("/me").text == "user")
                #expect(try await signedIn.get("/me").text == "user")
                // A sign-out while it is down holds here at once, and is written once it is back.
                let other = TestClient(app)
                other.setCookie("micro.session", try #require(signedIn.cookies["micro.session"]?.value))
                #expect(try await other.post("/signout", form: [:]).location == "/")

                try pgCtl("start")
                restarted = true
                #expect(await eventually(within: .seconds(15)) { shared.database.reloadCount > reloads })
                #expect(shared.database.isReachable)
                let again = TestClient(app)
                let answer = try await signIn(again)
                #expect(answer.location == "/", "\(answer.status) \(answer.location ?? "") \(answer.text.prefix(300))")
                #expect(try await again.get("/me").text == "user")
                #expect(await eventually(within: .seconds(15)) { shared.revocations.unwrittenCount == 0 })
            }
            // One line when the outage began and one when it ended, however many requests met it.
            #expect(log.messages(at: .error).filter { $0.contains("is unreachable") }.count == 1, "\(log.messages(at: .error))")
            #expect(log.messages(at: .notice).filter { $0.contains("reachable again") }.count == 1, "\(log.messages(at: .notice))")
        }
    }
}
