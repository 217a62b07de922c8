import Foundation
import Micro
@testable import MicroAccounts
import MicroAuth
import MicroTestSupport
import MicroTesting
import Testing

/// The admins are the users page's to manage: by default a SCIM token neither gives nor takes
/// the admin role, nor changes an admin's address, state or existence; `managesAdmins` lets it.
@Suite struct ScimAdminTests {
    /// The refusal of a change to the admins: a 403 in SCIM's error form.
    private func expectRefused(_ response: TestResponse) throws {
        #expect(response.status == .forbidden, "\(response.text)")
        let error = try ScimFixture.error(response)
        #expect(error.status == "403")
        #expect(error.scimType == nil || error.scimType == "mutability")
    }

    @Test func aTokenCannotGiveItselfOrAnyoneTheAdminRole() async throws {
        let fixture = try await ScimFixture.make()
        defer { Task { await fixture.close() } }
        try expectRefused(try await fixture.send(.PATCH, "/scim/v2/Groups/admin", #"{"Operations":[{"op":"add","path":"members","value":[{"value":"user"}]}]}"#))
        try expectRefused(try await fixture.send(.PUT, "/scim/v2/Groups/admin", #"{"displayName":"admin","members":[{"value":"ann"},{"value":"user"}]}"#))
        #expect(try fixture.stored("user")?.user.roles == [])
        // A user SCIM added is no admin either.
        #expect(try await fixture.send(.POST, "/scim/v2/Users", #"{"userName":"mallory"}"#).status == .created)
        try expectRefused(try await fixture.send(.PATCH, "/scim/v2/Groups/admin", #"{"Operations":[{"op":"replace","path":"members","value":[{"value":"ann"},{"value":"mallory"}]}]}"#))
        #expect(try fixture.stored("mallory")?.user.roles == [])
    }

    @Test func aTokenCannotTakeTheAdminRole() async throws {
        let fixture = try await ScimFixture.make()
        defer { Task { await fixture.close() } }
        try fixture.users.save(username: "bea", passwordHash: TestHashes.secret123, name: nil, roles: ["admin"])
        try expectRefused(try await fixture.send(.PATCH, "/scim/v2/Groups/admin", #"{"Operations":[{"op":"remove","path":"members[value eq \"bea\"]"}]}"#))
        try expectRefused(try await fixture.send(.PUT, "/scim/v2/Groups/admin", #"{"displayName":"admin","members":[{"value":"ann"}]}"#))
        try expectRefused(try await fixture.send(.DELETE, "/scim/v2/Groups/admin"))
        #expect(try fixture.stored("bea")?.user.roles == ["admin"])
        #expect(try fixture.stored("ann")?.user.roles == ["admin"])
        // A request that changes nothing of the role is answered.
        #expect(try await fixture.send(.PATCH, "/scim/v2/Groups/admin", #"{"Operations":[{"op":"add","path":"members","value":[{"value":"bea"}]}]}"#).status == .ok)
    }

    @Test func anAdminsAddressStateAndAccountAreNotScims() async throws {
        let fixture = try await ScimFixture.make()
        defer { Task { await fixture.close() } }
        try fixture.users.save(username: "bea", passwordHash: TestHashes.secret123, name: nil, roles: ["admin"])
        try expectRefused(try await fixture.send(.PATCH, "/scim/v2/Users/bea", #"{"Operations":[{"op":"replace","path":"emails","value":[{"value":"mallory@example.com"}]}]}"#))
        try expectRefused(try await fixture.send(.PUT, "/scim/v2/Users/bea", #"{"userName":"bea","emails":[{"value":"mallory@example.com"}]}"#))
        try expectRefused(try await fixture.send(.PATCH, "/scim/v2/Users/bea", #"{"Operations":[{"op":"replace","path":"active","value":false}]}"#))
        try expectRefused(try await fixture.send(.DELETE, "/scim/v2/Users/bea"))
        let bea = try #require(try fixture.stored("bea"))
        #expect(bea.user.email == nil && !bea.isDisabled)
        // Their display name is still the provider's to keep.
        #expect(try await fixture.send(.PATCH, "/scim/v2/Users/bea", #"{"Operations":[{"op":"replace","path":"displayName","value":"Bea Adams"}]}"#).status == .ok)
        #expect(try fixture.stored("bea")?.user.name == "Bea Adams")
    }

    @Test func managesAdminsLetsTheProviderDoAll() async throws {
        let fixture = try await ScimFixture.make(managesAdmins: true)
        defer { Task { await fixture.close() } }
        #expect(try await fixture.send(.PATCH, "/scim/v2/Groups/admin", #"{"Operations":[{"op":"add","path":"members","value":[{"value":"user"}]}]}"#).status == .ok)
        #expect(try fixture.stored("user")?.user.roles == ["admin"])
        #expect(try await fixture.send(.PATCH, "/scim/v2/Users/user", #"{"Operations":[{"op":"replace","path":"emails","value":[{"value":"u@example.com"}]}]}"#).status == .ok)
        #expect(try await fixture.send(.PATCH, "/scim/v2/Users/user", #"{"Operations":[{"op":"replace","path":"active","value":false}]}"#).status == .ok)
        #expect(try await fixture.send(.DELETE, "/scim/v2/Users/user").status == .noContent)
        #expect(try fixture.stored("user") == nil)
    }

    @Test func aGroupPutGivesTheRoleBeforeTakingIt() async throws {
        let fixture = try await ScimFixture.make(managesAdmins: true)
        defer { Task { await fixture.close() } }
        // Taken from ann first, the role would have had no enabled holder for a moment: the
        // store refuses that, and the handover would fail halfway.
        let handover = try await fixture.send(.PUT, "/scim/v2/Groups/admin", #"{"displayName":"admin","members":[{"value":"user"}]}"#)
        #expect(handover.status == .ok, "\(handover.text)")
        #expect(try fixture.stored("user")?.user.roles == ["admin"])
        #expect(try fixture.stored("ann")?.user.roles == [])
    }

    @Test func anAddressChangeVoidsTheUsersSetUpAndResetLinks() async throws {
        let fixture = try await ScimFixture.make()
        defer { Task { await fixture.close() } }
        let links = DatabaseSetupLinkStore(fixture.database)
        try await fixture.database.migrate(DatabaseSetupLinkStore.migrations)
        let now = Int64(fixture.clock.now.timeIntervalSince1970)
        let link = SetupLink(digest: String(repeating: "a", count: 64), username: "user", purpose: .reset, hashDigest: "x", createdAt: now, expiresAt: now + 3600)
        try await links.add(link, now: now)
        #expect(try await links.find(digest: link.digest, now: now) != nil)
        // A change of the name alone leaves it.
        #expect(try await fixture.send(.PATCH, "/scim/v2/Users/user", #"{"Operations":[{"op":"replace","path":"displayName","value":"Use R"}]}"#).status == .ok)
        #expect(try await links.find(digest: link.digest, now: now) != nil)
        let changed = try await fixture.send(.PATCH, "/scim/v2/Users/user", #"{"Operations":[{"op":"replace","path":"emails","value":[{"value":"new@example.com"}]}]}"#)
        #expect(changed.status == .ok, "\(changed.text)")
        #expect(try await links.find(digest: link.digest, now: now) == nil)
    }
}
