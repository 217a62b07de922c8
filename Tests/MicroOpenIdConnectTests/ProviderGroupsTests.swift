import Foundation
import Micro
import MicroOpenIdConnect
import MicroTestSupport
import MicroTesting
import Testing

/// The provider's groups at every single sign-on: required groups keep others out, and
/// synced roles follow the provider, for the store's users too.
@Suite(.serialized) struct ProviderGroupsTests {
    /// A users table holding ann (no password: single sign-on only) with `roles`, and cy, an admin.
    static func table(_ folder: TemporaryFolder, annRoles: [String] = [], cyAdmin: Bool = true) async throws -> SqliteUserStore {
        let users = try SqliteUserStore(path: folder.file("users.db"), create: true)
        _ = try await users.addUser(username: "ann", name: "Ann", roles: annRoles, passwordHash: StoredUser.noPasswordHash)
        if cyAdmin { _ = try await users.addUser(username: "cy", name: "Cy", roles: ["admin"], passwordHash: StoredUser.noPasswordHash) }
        return users
    }

    @Test func aPersonInNoRequiredGroupIsRefusedWithAnEventAndNoSession() async throws {
        let provider = try await HostileProvider.start()
        defer { Task { await provider.stop() } }
        let activity = MemoryActivityLog()
        let app = ssoApp(provider, activity: activity, configure: { $0.requiredGroups = ["Tools Users", "admins"] })
        provider.state.withLock { $0.claims["groups"] = .strings(["staff", "everyone"]) }
        let client = TestClient(app)
        let refused = try await signInThroughProvider(client, provider)
        #expect(refused.status == .forbidden)
        #expect(refused.text.contains("not in a group allowed here"))
        #expect(try await client.get("/protected").status == .found)
        let event = try #require(try await activity.events(of: "ann", offset: 0, limit: 10).first)
        #expect(event.event == "sign_in_failed")
        #expect(event.detail.contains("not in a required group"))
        // No claim at all is no group either.
        provider.state.withLock { $0.claims["groups"] = nil }
        #expect(try await signInThroughProvider(TestClient(app), provider).status == .forbidden)
        // One of them, in any case, lets the person in.
        // A group's name need not be a role's: spaces and all.
        provider.state.withLock { $0.claims["groups"] = .strings(["staff", "TOOLS users"]) }
        let admitted = TestClient(app)
        #expect(try await signInThroughProvider(admitted, provider).status == .seeOther)
        #expect(try await admitted.get("/protected").status == .ok)
    }

    @Test func requiredGroupsHoldForPeopleFromOutsideTheStore() async throws {
        let provider = try await HostileProvider.start()
        defer { Task { await provider.stop() } }
        let app = ssoApp(provider, configure: { $0.users = .any; $0.requiredGroups = ["tools"] })
        provider.state.withLock { $0.claims["preferred_username"] = .string("zed"); $0.claims["sub"] = .string("sub-zed"); $0.claims["groups"] = .strings(["other"]) }
        let client = TestClient(app)
        #expect(try await signInThroughProvider(client, provider).status == .forbidden)
        #expect(try await client.get("/protected").status == .found)
    }

    @Test func syncedRolesFollowTheProviderAndAChangeEndsTheUsersOtherSessions() async throws {
        let provider = try await HostileProvider.start()
        defer { Task { await provider.stop() } }
        let folder = try TemporaryFolder()
        defer { folder.remove() }
        let users = try await Self.table(folder, annRoles: ["viewer"])
        let activity = MemoryActivityLog()
        let app = ssoApp(provider, users: users, activity: activity, configure: { $0.roleSync = true })
        provider.state.withLock { $0.claims["groups"] = .strings(["viewer"]) }
        let laptop = TestClient(app)
        #expect(try await signInThroughProvider(laptop, provider).status == .seeOther)
        #expect(try await laptop.get("/protected").text.hasPrefix("Hello ann [viewer]"))
        // The same roles: nothing changes, and the laptop's session goes on.
        let phone = TestClient(app)
        #expect(try await signInThroughProvider(phone, provider).status == .seeOther)
        #expect(try await laptop.get("/protected").status == .ok)
        #expect(try await activity.events(of: "ann", offset: 0, limit: 20).contains { $0.event == "roles_changed" } == false)
        // Moved to another team at the provider.
        provider.state.withLock { $0.claims["groups"] = .strings(["Editor", "ops", "not a role!"]) }
        let desk = TestClient(app)
        #expect(try await signInThroughProvider(desk, provider).status == .seeOther)
        #expect(try await desk.get("/protected").text.hasPrefix("Hello ann [editor,ops]"))
        #expect(try users.find(username: "ann")?.user.roles == ["editor", "ops"])
        #expect(try await laptop.get("/protected").status == .found)
        #expect(try await phone.get("/protected").status == .found)
        let event = try #require(try await activity.events(of: "ann", offset: 0, limit: 20).first { $0.event == "roles_changed" })
        #expect(event.detail.contains("editor ops by single sign-on from \(provider.issuer)"))
    }

    @Test func aTokenWithoutTheClaimIsRefusedAndWipesNoRoles() async throws {
        let provider = try await HostileProvider.start()
        defer { Task { await provider.stop() } }
        let folder = try TemporaryFolder()
        defer { folder.remove() }
        let users = try await Self.table(folder, annRoles: ["editor"])
        let app = ssoApp(provider, users: users, configure: { $0.roleSync = true })
        provider.state.withLock { $0.claims["groups"] = nil }
        let client = TestClient(app)
        let refused = try await signInThroughProvider(client, provider)
        #expect(refused.status == .forbidden)
        #expect(try await client.get("/protected").status == .found)
        #expect(try users.find(username: "ann")?.user.roles == ["editor"])
        // Groups none of which is a role name here (a Keycloak full path): refused, nothing wiped.
        provider.state.withLock { $0.claims["groups"] = .strings(["/tools/editors", "a b"]) }
        #expect(try await signInThroughProvider(client, provider).status == .forbidden)
        #expect(try users.find(username: "ann")?.user.roles == ["editor"])
        // An empty list is a claim: the person is in no group, and keeps no role.
        provider.state.withLock { $0.claims["groups"] = .strings([]) }
        #expect(try await signInThroughProvider(client, provider).status == .seeOther)
        #expect(try users.find(username: "ann")?.user.roles == [])
    }

    @Test func theLastAdminIsNotDemotedBehindTheirBack() async throws {
        let provider = try await HostileProvider.start()
        defer { Task { await provider.stop() } }
        let folder = try TemporaryFolder()
        defer { folder.remove() }
        let users = try await Self.table(folder, annRoles: ["admin"], cyAdmin: false)
        let app = ssoApp(provider, users: users, configure: { $0.roleSync = true })
        provider.state.withLock { $0.claims["groups"] = .strings(["staff"]) }
        let client = TestClient(app)
        let refused = try await signInThroughProvider(client, provider)
        #expect(refused.status == .forbidden)
        #expect(refused.text.contains("last admin"))
        #expect(try users.find(username: "ann")?.user.roles == ["admin"])
    }

    @Test func rolesCannotBeSyncedIntoAFileTheAppCannotChange() async throws {
        let provider = try await HostileProvider.start()
        defer { Task { await provider.stop() } }
        let app = ssoApp(provider, configure: { $0.roleSync = true })
        provider.state.withLock { $0.claims["groups"] = .strings(["editor"]) }
        let client = TestClient(app)
        let answer = try await signInThroughProvider(client, provider)
        #expect(answer.status == .serviceUnavailable)
        #expect(try await client.get("/protected").status == .found)
    }
}
