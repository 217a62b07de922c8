import Foundation
import Micro
import MicroAccounts
import MicroAuth
import MicroCore
import MicroTestSupport
import MicroTesting
import Testing

/// A name given to someone new starts clean: after `bob` is removed (on the users page, or as
/// `remove-user` does) and a new `bob` added, the new bob sees none of the old one's sessions
/// and history; the audit keeps them, marked as an earlier account's.
@Suite struct NameReuseTests {
    enum Keeping: String, CaseIterable, CustomTestStringConvertible, Sendable {
        case memory, database
        var testDescription: String { rawValue }
    }

    private static let json: HttpHeaders = ["Accept": "application/json"]
    private static let oldBrowser = "Mozilla/5.0 (Windows NT 10.0; Win64; x64; rv:115.0) Gecko/20100101 Firefox/115.0"

    /// An app over `users.db` in `folder`: `ann` (admin) and `bob`, the account pages' state in
    /// memory or in the same file (as SampleApp keeps it).
    private func makeApp(_ folder: TemporaryFolder, clock: TestClock, keeping: Keeping) async throws -> (App, SqliteUserStore, Database?) {
        let users = try SqliteUserStore(path: folder.file("users.db"), create: true)
        if try users.find(username: "ann") == nil {
            try users.save(username: "ann", passwordHash: TestHashes.annPassword, name: "Ann Smith", roles: ["admin"])
            try users.save(username: "bob", passwordHash: TestHashes.secret123, name: nil)
        }
        let app = isolatedApp { $0.clock = { clock.now } }
        var authentication = Authentication(users: users)
        authentication.hasher = PasswordHasher(threads: 1)
        authentication.passwordCost = 4
        app.use(authentication)
        let database = keeping == .database ? try await Database.sqlite(path: folder.file("users.db")) : nil
        app.use(database.map { Accounts(database: $0) } ?? Accounts())
        return (app, users, database)
    }

    private func list(_ client: TestClient, _ path: String) async throws -> [[String: Any]] {
        let answer = try await client.get(path, headers: Self.json)
        return try JSONSerialization.jsonObject(with: Data(answer.body)) as? [[String: Any]] ?? []
    }

    /// The old bob: signed in twice from an old browser, one wrong password.
    private func oldBobsHistory(_ app: App) async throws {
        for _ in 0..<2 {
            let laptop = TestClient(app)
            laptop.defaultHeaders = ["User-Agent": Self.oldBrowser]
            _ = try await laptop.post("/signin", form: ["username": "bob", "password": "wrong"])
            try await laptop.signIn("bob", "secret123")
        }
    }

    /// What the new bob sees: only his own sign-in and session.
    private func expectNewBobStartsClean(_ app: App, password: String, setByAdmin: Bool) async throws {
        let bob = TestClient(app)
        try await bob.signIn("bob", password)
        if setByAdmin { try await bob.changePassword(from: password, to: "bob's own choice 3") }
        let sessions = try await list(bob, "/account/sessions")
        #expect(sessions.count == 1 && sessions.first?["current"] as? Bool == true)
        let events = try await list(bob, "/account/activity")
        #expect(!events.isEmpty)
        #expect(!events.contains { ($0["browser"] as? String)?.contains("Firefox") == true })
        #expect(!events.contains { $0["event"] as? String == ActivityEvent.Kind.signInFailed || $0["event"] as? String == ActivityEvent.Kind.userRemoved })
        #expect(events.allSatisfy { $0["accountEndedAt"] == nil })
    }

    @Test(arguments: Keeping.allCases) func aNameRemovedAndAddedAgainOnTheUsersPageStartsClean(keeping: Keeping) async throws {
        let folder = try TemporaryFolder()
        defer { folder.remove() }
        let clock = TestClock(Date())
        let (app, _, _) = try await makeApp(folder, clock: clock, keeping: keeping)
        try await oldBobsHistory(app)
        let ann = TestClient(app)
        try await ann.signIn("ann", "ann-password")
        // The acting admin's password goes with each change, as the users page may ask for it.
        #expect(try await ann.post("/admin/users/remove", form: ["username": "bob", "current_password": "ann-password"]).status == .seeOther)
        // The removal revoked the name's sessions begun until this second.
        clock.advance(seconds: 1)
        let added = try await ann.post(
            "/admin/users/add", form: ["new_username": "bob", "name": "Bob Two", "roles": "", "password": "another horse 9", "current_password": "ann-password"])
        #expect(added.status == .seeOther)
        try await expectNewBobStartsClean(app, password: "another horse 9", setByAdmin: true)
        // The audit keeps the old bob's events, each marked as an earlier account's.
        let audit = try await list(ann, "/admin/audit?user=bob")
        let old = audit.filter { $0["accountEndedAt"] != nil }
        #expect(old.contains { $0["event"] as? String == ActivityEvent.Kind.signInFailed && ($0["browser"] as? String)?.contains("Firefox") == true })
        #expect(old.contains { $0["event"] as? String == ActivityEvent.Kind.userRemoved && $0["detail"] as? String == "by ann" })
        #expect(old.filter { $0["event"] as? String == ActivityEvent.Kind.signedIn }.count == 2)
        #expect(audit.contains { $0["event"] as? String == ActivityEvent.Kind.signedIn && $0["accountEndedAt"] == nil })
        #expect(try await ann.get("/admin/audit?user=bob").text.contains("an earlier account, removed"))
    }

    @Test func aNameRemovedAsRemoveUserDoesStartsCleanEvenWhenAddedBySql() async throws {
        let folder = try TemporaryFolder()
        defer { folder.remove() }
        let clock = TestClock(Date())
        let (app, users, database) = try await makeApp(folder, clock: clock, keeping: .database)
        try await oldBobsHistory(app)
        // `remove-user bob`: the row, then what the account pages kept under the name.
        #expect(try users.remove(username: "bob"))
        try await AccountLeftovers.forget("bob", in: try #require(database))
        // A new bob put in by hand, not through add-user.
        try users.save(username: "bob", passwordHash: TestHashes.annPassword, name: "Bob Two")
        try await expectNewBobStartsClean(app, password: "ann-password", setByAdmin: false)
        let ann = TestClient(app)
        try await ann.signIn("ann", "ann-password")
        let audit = try await list(ann, "/admin/audit?user=bob")
        #expect(audit.filter { $0["accountEndedAt"] != nil && $0["event"] as? String == ActivityEvent.Kind.signedIn }.count == 2)
    }
}
