import Foundation
@testable import MicroAccounts
@testable import MicroAuth
@testable import MicroCore
import MicroTesting
import Testing

/// The accounts' audit links to older events only when there are some.
@Suite struct AuditPageLinkTests {
    @Test func aShortAuditHasNoOlderLink() async throws {
        let folder = try TemporaryFolder()
        defer { folder.remove() }
        try folder.write("views/layout.mustache", "<main>{{{yield}}}</main>")
        let app = isolatedApp { $0.views = folder.file("views") }
        let users = try SqliteUserStore(path: folder.file("users.db"), create: true)
        try users.save(username: "ann", passwordHash: TestHashes.annPassword, name: "Ann", roles: ["admin"])
        var authentication = Authentication(users: users)
        authentication.hasher = PasswordHasher(threads: 1)
        app.use(authentication)
        app.use(Accounts())
        let admin = TestClient(app)
        try await admin.signIn("ann", "ann-password")
        let page = try await admin.get("/admin/audit").text
        #expect(page.contains("signed_in"))
        #expect(!page.contains(#"rel="next""#), "\(page)")
        #expect(!page.contains("data-account-ended") && !page.contains("an earlier account"))
        // Filtered by a user, the link to the unknown users' events is not shown.
        #expect(!(try await admin.get("/admin/audit?user=ann").text.contains("names that are no user")))
    }
}
