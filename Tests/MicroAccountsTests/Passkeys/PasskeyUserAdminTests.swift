import Foundation
import MicroAccounts
import MicroAuth
import MicroCore
import MicroPasskeys
import MicroTestSupport
import MicroTesting
import SQLKit
import Testing

/// Passkeys on the admin's users page: each user's count, their removal (checked as the page's
/// own changes are), and a removed user's passkeys going with them.
@Suite struct PasskeyUserAdminTests {
    typealias Driver = PasskeyScriptDriver

    @Test func theUsersPageCountsAUsersPasskeysAndRemovesThemAllOnceConfirmed() async throws {
        let folder = try TemporaryFolder()
        defer { folder.remove() }
        let (app, database) = try await Driver.makeApp(folder)
        let client = TestClient(app)
        try await client.signIn("user", "secret123")
        for _ in 0..<2 { #expect(try await Driver.add(client, try SoftwareAuthenticator(.es256)).status == .created) }
        _ = try await SqliteUserStore(path: folder.file("users.db")).setRoles(of: "ann", to: ["admin"], keepingOne: "admin")
        let admin = TestClient(app)
        try await admin.signIn("ann", "ann-password")
        let page = try await admin.get("/admin/users")
        #expect(page.text.contains("Passkeys:<ul><li>2 passkeys"), "\(page.text)")
        #expect(page.text.contains(#"action="/admin/users/passkeys/remove""#))

        // Unproven, the page answers as for its own changes: the password is wanted.
        let unproven = try await admin.post("/admin/users/passkeys/remove", form: ["username": "user"])
        #expect(unproven.status == .unprocessableEntity && unproven.text.contains("That is not your current password."))
        #expect(try await PasskeyStore(database).passkeys(of: "user").count == 2)
        _ = try await admin.confirmAdmin("ann-password")
        let removed = try await admin.post("/admin/users/passkeys/remove", form: ["username": "user"])
        #expect(removed.status == .seeOther && removed.location == "/admin/users")
        #expect(try await PasskeyStore(database).passkeys(of: "user").isEmpty)
        let detail = try await database.sql.select().column("detail").from("micro_activity").where("event", .equal, "passkey_removed").all()
            .map { try $0.decode(column: "detail", as: String.self) }
        #expect(detail == ["all 2, by ann"])
        #expect(try await admin.post("/admin/users/passkeys/remove", form: ["username": "user"]).status == .notFound, "none left")
        #expect(try await admin.post("/admin/users/passkeys/remove", form: ["username": "\u{202E}x"]).status == .notFound, "no such name")
        #expect(!(try await admin.get("/admin/users").text.contains("passkeys/remove")), "no line for a user without passkeys")
    }

    @Test func removingAUserOnTheUsersPageRemovesTheirPasskeys() async throws {
        let folder = try TemporaryFolder()
        defer { folder.remove() }
        let (app, database) = try await Driver.makeApp(folder)
        let client = TestClient(app)
        try await client.signIn("user", "secret123")
        #expect(try await Driver.add(client, try SoftwareAuthenticator(.es256)).status == .created)
        _ = try await SqliteUserStore(path: folder.file("users.db")).setRoles(of: "ann", to: ["admin"], keepingOne: "admin")
        let admin = TestClient(app)
        try await admin.signIn("ann", "ann-password")
        _ = try await admin.confirmAdmin("ann-password")
        #expect(try await admin.post("/admin/users/remove", form: ["username": "user"]).status == .seeOther)
        #expect(try await PasskeyStore(database).counts().isEmpty)
    }
}
