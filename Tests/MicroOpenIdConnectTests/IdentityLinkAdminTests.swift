import Foundation
import Micro
import MicroOpenIdConnect
import MicroTesting
import Testing

/// The links on the admin's users page: listed under each user, linked and unlinked there.
@Suite(.serialized) struct IdentityLinkAdminTests {
    @Test func anAdminSeesLinksAndLinksAndUnlinksThem() async throws {
        let provider = try await HostileProvider.start()
        defer { Task { await provider.stop() } }
        let users = TestUsers([User(username: "cy", roles: ["admin"])])
        try users.addWithPassword(User(username: "ann"), "correct horse battery")
        let links = MemoryIdentityLinkStore()
        let activity = MemoryActivityLog()
        let app = ssoApp(provider, users: users, activity: activity, configure: { $0.links = links })
        // cy, made for single sign-on only, signs in by the claim: an admin.
        provider.state.withLock { $0.claims["preferred_username"] = .string("cy"); $0.claims["sub"] = .string("sub-cy") }
        let admin = TestClient(app)
        #expect(try await signInThroughProvider(admin, provider).status == .seeOther)
        let page = try await admin.get("/admin/users")
        #expect(page.status == .ok)
        #expect(page.text.contains("Single sign-on with Test IdP"))
        #expect(page.text.contains("\(provider.issuer), subject sub-cy: linked "))
        #expect(page.text.contains("action=\"/auth/oidc/links/unlink\""))
        #expect(page.text.contains("Not linked."))
        #expect(page.text.contains("action=\"/auth/oidc/links/link\""))
        // The admin links ann to her subject: her first single sign-on then asks nothing.
        let linked = try await admin.post("/auth/oidc/links/link", form: ["username": "ann", "subject": "sub-ann"])
        #expect(linked.status == .seeOther)
        #expect(linked.location == "/admin/users")
        let event = try #require(try await activity.events(of: "ann", offset: 0, limit: 10).first { $0.event == "identity_linked" })
        #expect(event.detail == "issuer=\(provider.issuer) subject=sub-ann claim=none by cy")
        provider.state.withLock { $0.claims["preferred_username"] = .string("ann"); $0.claims["sub"] = .string("sub-ann") }
        let ann = TestClient(app)
        #expect(try await signInThroughProvider(ann, provider).location == "/")
        #expect(try await ann.get("/protected").text.hasPrefix("Hello ann []"))
        // A user who is no admin changes no link.
        #expect(try await ann.post("/auth/oidc/links/unlink", form: ["username": "cy", "issuer": provider.issuer, "subject": "sub-cy"]).status == .forbidden)
        #expect(try await links.username(linkedTo: ExternalIdentity(issuer: provider.issuer, subject: "sub-cy")) == "cy")
        // A subject no provider sends is refused, not stored.
        #expect(try await admin.post("/auth/oidc/links/link", form: ["username": "ann", "subject": "a\r\nb"]).status == .unprocessableEntity)
        #expect(try await admin.post("/auth/oidc/links/link", form: ["username": "ann", "subject": String(repeating: "s", count: 256)]).status == .unprocessableEntity)
        // Unlinked: listed no more, and an event says so.
        let unlinked = try await admin.post("/auth/oidc/links/unlink", form: ["username": "ann", "issuer": provider.issuer, "subject": "sub-ann"])
        #expect(unlinked.status == .seeOther)
        #expect(try await links.username(linkedTo: ExternalIdentity(issuer: provider.issuer, subject: "sub-ann")) == nil)
        #expect(try await activity.events(of: "ann", offset: 0, limit: 10).first?.event == "identity_unlinked")
        #expect(try await admin.post("/auth/oidc/links/unlink", form: ["username": "ann", "issuer": provider.issuer, "subject": "sub-ann"]).status == .notFound)
        // Her next single sign-on is a first one again: her password is asked.
        let again = TestClient(app)
        #expect(try await signInThroughProvider(again, provider).location == "/auth/oidc/link")
    }
}

/// With `any`, a store user added under a name someone from outside the store signed in with
/// does not become that person.
@Suite(.serialized) struct IdentityLinkNewUserTests {
    @Test func addingAStoreUserUnderAnOutsideNameDropsTheLinkAndEndsItsSessions() async throws {
        let provider = try await HostileProvider.start()
        defer { Task { await provider.stop() } }
        let folder = FileManager.default.temporaryDirectory.appendingPathComponent("micro-oidc-add-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: folder, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(at: folder) }
        let users = try SqliteUserStore(path: folder.appendingPathComponent("users.db").path, create: true)
        try users.save(username: "ann", passwordHash: try Password.hash("ann's own password", cost: 4), name: nil, roles: ["admin"])
        let links = MemoryIdentityLinkStore()
        let activity = MemoryActivityLog()
        let app = ssoApp(provider, users: users, activity: activity, configure: { $0.users = .any; $0.links = links })
        provider.state.withLock { $0.claims["preferred_username"] = .string("dee"); $0.claims["sub"] = .string("sub-outsider") }
        let outsider = TestClient(app)
        #expect(try await signInThroughProvider(outsider, provider).location == "/")
        #expect(try await outsider.get("/protected").text.hasPrefix("Hello dee "))
        let admin = TestClient(app)
        try await admin.signIn("ann", "ann's own password")
        try await admin.confirmAdmin("ann's own password")
        #expect(try await admin.get("/admin/users").text.contains("name=\"no_password\""))
        let added = try await admin.post("/admin/users/add", form: ["new_username": "dee", "name": "", "roles": "", "password": "dee's new password 1"])
        #expect(added.status == .seeOther)
        // The admin is told (the test app's page shows the flash).
        let page = try await admin.get("/protected")
        #expect(page.text.contains("dee has been added. The name was linked to an account at Test IdP from outside the store (subject sub-outsider): unlinked, and their sessions ended."))
        #expect(try await outsider.get("/protected").status == .found)
        #expect(try await links.username(linkedTo: ExternalIdentity(issuer: provider.issuer, subject: "sub-outsider")) == nil)
        #expect(try await activity.events(of: "dee", offset: 0, limit: 10).contains { $0.event == "identity_unlinked" })
        // The outside account's next single sign-on must prove the new dee's password.
        #expect(try await signInThroughProvider(TestClient(app), provider).location == "/auth/oidc/link")
        // A user added for single sign-on only has no password.
        let sso = try await admin.post("/admin/users/add", form: ["new_username": "eve", "name": "", "roles": "", "password": "", "no_password": "on"])
        #expect(sso.status == .seeOther)
        #expect(StoredUser.isNoPasswordHash(try users.find(username: "eve")?.passwordHash ?? ""))
    }

    @Test func anAdminEndsTheSessionsOfSomeoneFromOutsideTheStore() async throws {
        let provider = try await HostileProvider.start()
        defer { Task { await provider.stop() } }
        let users = TestUsers([])
        try users.addWithPassword(User(username: "ann", roles: ["admin"]), "ann's own password")
        let activity = MemoryActivityLog()
        let app = ssoApp(provider, users: users, activity: activity, configure: { $0.users = .any })
        provider.state.withLock { $0.claims["preferred_username"] = .string("dee"); $0.claims["sub"] = .string("sub-outsider") }
        let outsider = TestClient(app)
        #expect(try await signInThroughProvider(outsider, provider).location == "/")
        // Not an admin: no page, no action.
        #expect(try await outsider.get("/auth/oidc/outside").status == .forbidden)
        #expect(try await outsider.post("/auth/oidc/outside/sign-out", form: ["username": "dee"]).status == .forbidden)
        let admin = TestClient(app)
        try await admin.signIn("ann", "ann's own password")
        // The admin's cookie alone changes nothing: a recent proof is asked, as on the users page.
        #expect(try await admin.post("/auth/oidc/outside/sign-out", form: ["username": "dee"]).status == .forbidden)
        #expect(try await admin.post("/auth/oidc/links/link", form: ["username": "ann", "subject": "sub-x"]).status == .forbidden)
        try await admin.confirmAdmin("ann's own password")
        let page = try await admin.get("/auth/oidc/outside")
        #expect(page.status == .ok)
        #expect(page.text.contains("<td>dee</td>") && page.text.contains("sub-outsider"))
        #expect(!page.text.contains("<td>ann</td>"))
        let ended = try await admin.post("/auth/oidc/outside/sign-out", form: ["username": "dee"])
        #expect(ended.status == .seeOther)
        #expect(try await outsider.get("/protected").status == .found)
        #expect(try await activity.events(of: "dee", offset: 0, limit: 10).first?.detail == "by ann")
    }
}
