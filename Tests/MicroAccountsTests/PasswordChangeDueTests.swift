import Foundation
import Micro
import MicroAccounts
import MicroAuth
import MicroCore
import MicroTestSupport
import MicroTesting
import MicroTwoFactor
import Testing

/// A password someone else set (the users page, `add-user`) opens only the page that changes
/// it: every other page leads there, scripts' credentials are refused, and the user's own
/// change (to another password) lifts it for good.
@Suite struct PasswordChangeDueTests {
    /// An app over `users.db` in `folder`: `ann` (admin, ann-password) and `user` (secret123).
    private func makeApp(_ folder: TemporaryFolder, database: Database? = nil, twoFactorForAdmins: Bool = false) throws -> (App, SqliteUserStore) {
        let app = isolatedApp()
        let users = try SqliteUserStore(path: folder.file("users.db"), create: true)
        try users.save(username: "ann", passwordHash: TestHashes.annPassword, name: "Ann Smith", roles: ["admin"])
        try users.save(username: "user", passwordHash: TestHashes.secret123, name: nil)
        var authentication = Authentication(users: users)
        authentication.hasher = PasswordHasher(threads: 1)
        authentication.passwordCost = 4
        app.use(authentication)
        var accounts = database.map { Accounts(database: $0) } ?? Accounts()
        if twoFactorForAdmins { accounts.twoFactor.requiredForRoles = ["admin"] }
        app.use(accounts)
        app.get("/me") { request in try request.authenticate().username }
        return (app, users)
    }

    private static let json: HttpHeaders = ["Accept": "application/json"]

    private static func basic(_ name: String, _ password: String) -> HttpHeaders {
        ["Authorization": "Basic " + Data("\(name):\(password)".utf8).base64EncodedString(), "Accept": "application/json"]
    }

    /// Ann sets `user`'s password to `password` on the users page.
    private func adminSets(_ app: App, _ password: String) async throws {
        let ann = TestClient(app)
        try await ann.signIn("ann", "ann-password")
        let set = try await ann.post("/admin/users/password", form: ["username": "user", "new_password": password, "current_password": "ann-password"])
        #expect(set.status == .seeOther)
    }

    @Test func aPasswordTheAdminSetLeadsEveryPageToItsChange() async throws {
        let folder = try TemporaryFolder()
        defer { folder.remove() }
        let (app, users) = try makeApp(folder)
        try await adminSets(app, "the admin's choice 1")
        #expect(try users.find(username: "user")?.passwordChangeDue == true)
        let ann = TestClient(app)
        try await ann.signIn("ann", "ann-password")
        #expect(try await ann.get("/admin/users").text.contains("data-password-change-due"))

        let user = TestClient(app)
        try await user.signIn("user", "the admin's choice 1")
        for path in ["/me", "/account", "/account/sessions", "/account/tokens", "/nowhere"] {
            let led = try await user.get(path)
            #expect(led.status == .found && led.location == "/account/password", "\(path)")
        }
        let page = try await user.get("/account/password")
        #expect(page.status == .ok && page.text.contains("Your password was set by an administrator"))
        let refused = try await user.get("/me", headers: Self.json)
        #expect(refused.status == .forbidden && refused.text.contains("choose your own"))
        // A form elsewhere is led away too, not run.
        let token = try await user.post("/account/tokens", form: ["name": "early", "current_password": "the admin's choice 1"])
        #expect(token.location == "/account/password")
        // Keeping the given password is no change.
        let kept = try await user.post(
            "/account/password",
            form: ["current_password": "the admin's choice 1", "new_password": "the admin's choice 1", "new_password_confirmation": "the admin's choice 1"])
        #expect(kept.status == .unprocessableEntity && kept.text.contains("not the one you were given"))
        #expect(try users.find(username: "user")?.passwordChangeDue == true)

        try await user.changePassword(from: "the admin's choice 1", to: "my own choice 2")
        #expect(try await user.get("/me").text == "user")
        #expect(try users.find(username: "user")?.passwordChangeDue == false)
        // The next sign-in is an ordinary one.
        let again = TestClient(app)
        try await again.signIn("user", "my own choice 2")
        #expect(try await again.get("/me").text == "user")
    }

    @Test func signingOutStaysOpenAndTheMarkOutlivesTheSession() async throws {
        let folder = try TemporaryFolder()
        defer { folder.remove() }
        let (app, _) = try makeApp(folder)
        try await adminSets(app, "the admin's choice 1")
        let user = TestClient(app)
        try await user.signIn("user", "the admin's choice 1")
        let out = try await user.post("/signout", form: [:])
        #expect(out.status == .seeOther && out.location != "/account/password")
        #expect(try await user.get("/me").location == "/signin")
        // Signing in again with it leads to the change again: the mark is the store's.
        try await user.signIn("user", "the admin's choice 1")
        #expect(try await user.get("/me").location == "/account/password")
    }

    @Test func scriptsOfSuchAUserAreRefusedWithTheReason() async throws {
        let folder = try TemporaryFolder()
        defer { folder.remove() }
        let database = try await Database.sqlite(path: folder.file("accounts.db"))
        let (app, users) = try makeApp(folder, database: database)
        // A token the user made with a password of their own.
        let owner = TestClient(app)
        try await owner.signIn("user", "secret123")
        let made = try await owner.post("/account/tokens", form: ["name": "deploy", "current_password": "secret123"])
        let range = try #require(made.text.range(of: #"data-token="micro_[A-Za-z0-9_-]+""#, options: .regularExpression))
        let token = String(made.text[range].dropFirst("data-token=\"".count).dropLast())
        let script = TestClient(app)
        #expect(try await script.get("/me", headers: Self.basic("user", "secret123")).text == "user")
        // The mark written by hand, beside the same hash (the users page would have ended the token).
        try users.save(username: "user", passwordHash: TestHashes.secret123, name: nil, passwordChangeDue: true)
        let basic = try await TestClient(app).get("/me", headers: Self.basic("user", "secret123"))
        #expect(basic.status == .forbidden && basic.text.contains("choose your own before using HTTP Basic or API tokens"))
        let bearer = try await TestClient(app).get("/me", headers: ["Authorization": "Bearer \(token)", "Accept": "application/json"])
        #expect(bearer.status == .forbidden, "\(bearer.status) \(bearer.text)")
        await database.shutdown()
    }

    @Test func theFirstUserOfAnEmptyTableIsExemptAndOthersAreNot() async throws {
        let folder = try TemporaryFolder()
        defer { folder.remove() }
        let (app, users) = try makeApp(folder)
        let ann = TestClient(app)
        try await ann.signIn("ann", "ann-password")
        let added = try await ann.post(
            "/admin/users/add", form: ["new_username": "bob", "password": "typed by ann 5", "roles": "", "current_password": "ann-password"])
        #expect(added.status == .seeOther)
        #expect(try users.find(username: "bob")?.passwordChangeDue == true)
        #expect(try users.find(username: "ann")?.passwordChangeDue == false)
    }

    @Test func aRequiredSecondFactorWaitsUntilThePasswordIsChangedWithoutLeadingBackAndForth() async throws {
        let folder = try TemporaryFolder()
        defer { folder.remove() }
        let database = try await Database.sqlite(path: folder.file("accounts.db"))
        let (app, users) = try makeApp(folder, database: database, twoFactorForAdmins: true)
        // An admin whose password another set, who has no second factor yet.
        try users.save(username: "eve", passwordHash: TestHashes.secret123, name: nil, roles: ["admin"], passwordChangeDue: true)
        let eve = TestClient(app)
        try await eve.signIn("eve", "secret123")
        #expect(try await eve.get("/me").location == "/account/password")
        #expect(try await eve.get("/account/password").status == .ok)
        #expect(try await eve.get("/account/two-factor").location == "/account/password")
        try await eve.changePassword(from: "secret123", to: "eve's own choice 4")
        // Then the second factor's turn.
        #expect(try await eve.get("/me").location == "/account/two-factor")
        #expect(try await eve.get("/account/password").location == "/account/two-factor")
        await database.shutdown()
    }
}
