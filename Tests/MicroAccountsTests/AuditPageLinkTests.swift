import Foundation
import Micro
import MicroAccounts
import MicroAuth
import MicroCore
import MicroTestSupport
import MicroTesting
import Testing

/// The accounts' audit links to older events only when there are some, and back to newer ones
/// from a later page, keeping its filter.
@Suite struct AuditPageLinkTests {
    /// An app of sign-in and `accounts` in `folder`, with the admin ann.
    private func makeApp(_ folder: TemporaryFolder, _ accounts: Accounts) throws -> App {
        try folder.write("views/layout.mustache", "<main>{{{yield}}}</main>")
        let app = isolatedApp { $0.views = folder.file("views") }
        let users = try SqliteUserStore(path: folder.file("users.db"), create: true)
        try users.save(username: "ann", passwordHash: TestHashes.annPassword, name: "Ann", roles: ["admin"])
        var authentication = Authentication(users: users)
        authentication.hasher = PasswordHasher(threads: 1)
        app.use(authentication)
        app.use(accounts)
        return app
    }

    @Test func aShortAuditHasNoOlderLink() async throws {
        let folder = try TemporaryFolder()
        defer { folder.remove() }
        let app = try makeApp(folder, Accounts())
        let admin = TestClient(app)
        try await admin.signIn("ann", "ann-password")
        let page = try await admin.get("/admin/audit").text
        #expect(page.contains("signed_in"))
        #expect(!page.contains(#"rel="next""#), "\(page)")
        #expect(!page.contains("data-account-ended") && !page.contains("an earlier account"))
        // Filtered by a user, the link to the unknown users' events is not shown.
        #expect(!(try await admin.get("/admin/audit?user=ann").text.contains("names that are no user")))
    }

    @Test func aLongAuditLinksToOlderAndNewerPagesKeepingTheFilter() async throws {
        let folder = try TemporaryFolder()
        defer { folder.remove() }
        let accounts = Accounts()
        let app = try makeApp(folder, accounts)
        for second in 1...(ActivityLogLimits.pageSize + 5) {
            try await accounts.activity.record(ActivityEvent(username: "bob", event: "signed_in", at: Int64(Date().timeIntervalSince1970) - 1_000 + Int64(second), address: "192.0.2.1", browser: "curl"))
        }
        let admin = TestClient(app)
        try await admin.signIn("ann", "ann-password")
        let first = try await admin.get("/admin/audit?user=bob").text
        #expect(first.contains(#"rel="next" href="/admin/audit?page=2&amp;user=bob""#) && !first.contains(#"rel="prev""#), "\(first.prefix(3000))")
        let second = try await admin.get("/admin/audit?page=2&user=bob").text
        #expect(second.components(separatedBy: "data-event=").count - 1 == 5)
        #expect(second.contains(#"rel="prev" href="/admin/audit?user=bob""#) && !second.contains(#"rel="next""#), "\(second.suffix(300))")
        #expect(try await admin.get("/admin/audit?page=x").status == .badRequest)
    }
}
