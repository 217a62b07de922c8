import Foundation
import MicroAuth
import MicroCore
import MicroTestSupport
import MicroTesting
import Synchronization
import Testing

/// What another package needs to add a way in: a listener of the sign-in flow's moments and a
/// throttled attempt of its own, shared with the password's throttle. Written against the
/// public API only (no `@testable`), as an outside plugin is.
@Suite struct SignInPluginApiTests {
    /// Every moment it hears, in order.
    final class Recorder: SignInListener {
        let heard = Mutex<[String]>([])

        func signedIn(_ request: Request, user: User, detail: String) async { heard.withLock { $0.append("signed in \(user.username) by \(detail)") } }
        func signInFailed(_ request: Request, username: String?) async { heard.withLock { $0.append("failed \(username ?? "nobody")") } }
        func sessionsEnded(_ request: Request, username: String, everyWayIn: Bool) async { heard.withLock { $0.append("ended \(username)") } }
    }

    @Test func aBadgeSignInIsThrottledWithThePasswordAndHeardByAListener() async throws {
        let folder = try TemporaryFolder()
        defer { folder.remove() }
        let users = try SqliteUserStore(path: folder.file("users.db"), create: true)
        try users.save(username: "user", passwordHash: TestHashes.secret123, name: nil)
        let app = isolatedApp()
        var authentication = Authentication(users: users)
        authentication.hasher = PasswordHasher(threads: 1)
        authentication.throttleLimits.failuresPerUsername = 3
        app.use(authentication)
        let recorder = Recorder()
        // Added twice, as a plugin installed twice would: heard once.
        app.addSignInListener(Recorder())
        app.addSignInListener(recorder)
        app.get("/me") { request in request.currentUser?.username ?? "nobody" }
        app.post("/badge") { request in
            let name = request.params["username"] ?? ""
            let stored = try await request.signInAttempt(username: name) { attempt -> StoredUser? in
                guard let stored = try users.find(username: name) else { return nil }
                attempt.failedUser = stored.user.username
                guard request.params["badge"] == "1234" else { return nil }
                attempt.outcome = .success
                return stored
            }
            guard let stored else { throw HttpError(.forbidden, "That badge opens nothing.") }
            try await request.signIn(stored.user, credentialStamp: CredentialStamp(stored), via: "badge", detail: "badge")
            return "welcome"
        }
        app.post("/end") { request in
            await request.endSessions(of: "USER")
            return "ended"
        }

        let client = TestClient(app)
        #expect(try await client.post("/badge", form: ["username": "user", "badge": "1234"]).text == "welcome")
        #expect(try await client.get("/me").text == "user")
        #expect(try await TestClient(app).post("/end", form: [:]).text == "ended")
        #expect(try await client.get("/me").text == "nobody")
        // A name that is nobody's fails as nobody's: never the text sent.
        #expect(try await TestClient(app).post("/badge", form: ["username": "mallory", "badge": "0000"]).status == .forbidden)
        for _ in 0..<3 {
            #expect(try await TestClient(app).post("/badge", form: ["username": "user", "badge": "0000"]).status == .forbidden)
        }
        // The badge's failures lock the password out too, and the right badge.
        let locked = try await TestClient(app).post("/signin", form: ["username": "user", "password": "secret123"])
        #expect(locked.status == .tooManyRequests && locked.headers.first(name: "Retry-After") != nil)
        #expect(try await TestClient(app).post("/badge", form: ["username": "user", "badge": "1234"]).status == .tooManyRequests)
        #expect(recorder.heard.withLock { $0 } == ["signed in user by badge", "ended user", "failed nobody", "failed user", "failed user", "failed user"])
    }

    /// `signIn(checked:detail:)`, the call a plugin's way in makes once its check passed,
    /// refuses a user the store holds disabled, whatever the plugin checked.
    @Test func aCheckedSignInRefusesADisabledUser() async throws {
        let app = isolatedApp()
        let folder = try TemporaryFolder()
        defer { folder.remove() }
        let users = try SqliteUserStore(path: folder.file("users.db"), create: true)
        try users.save(username: "user", passwordHash: TestHashes.secret123, name: nil)
        app.use(Authentication(users: users))
        app.get("/me") { request in request.currentUser?.username ?? "nobody" }
        app.post("/badge") { request in
            guard var stored = try users.find(username: "user") else { return "no user" }
            // The user as a store holds one disabled: the hash behind its "!" mark.
            if request.params["disabled"] == "yes" { stored = StoredUser(user: stored.user, passwordHash: "!" + stored.passwordHash) }
            try await request.signIn(checked: stored, detail: "badge")
            return "welcome"
        }
        let client = TestClient(app)
        #expect(try await client.post("/badge", form: ["disabled": "yes"]).status == .forbidden)
        #expect(try await client.get("/me").text == "nobody")
        #expect(try await client.post("/badge", form: ["disabled": "no"]).text == "welcome")
        #expect(try await client.get("/me").text == "user")
    }

    /// A step never due, of the kind `Kind` names: two kinds are two types of step.
    struct Step<Kind>: SignInStep {
        func isDue(for username: String) async throws -> Bool { false }
        func begin(_ request: Request, _ stored: StoredUser) throws -> Never { throw HttpError(.forbidden) }
        func isNew(for username: String, since time: Int64) -> Bool { false }
        var basicRefusal: HttpError { HttpError(.forbidden) }
        func prove(_ request: Request, username: String, answer: String) async throws -> Bool { false }
    }

    enum Badge {}
    enum Code {}

    @Test func aSecondStepOfAnotherKindStopsTheStartInsteadOfReplacingTheFirst() async throws {
        let same = isolatedApp()
        same.setSignInStep(Step<Badge>())
        same.setSignInStep(Step<Badge>())
        same.get("/") { _ in "up" }
        #expect(try await TestClient(same).get("/").text == "up")

        let clashing = isolatedApp()
        clashing.setSignInStep(Step<Badge>())
        clashing.setSignInStep(Step<Code>())
        clashing.get("/") { _ in "up" }
        await #expect {
            _ = try await TestClient(clashing).get("/")
        } throws: { error in
            "\(error)".contains("Two steps after the password: Step<Badge> and Step<Code>")
        }
    }
}
