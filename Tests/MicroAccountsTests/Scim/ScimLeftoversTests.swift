import Foundation
import Micro
@testable import MicroAccounts
import MicroAuth
import MicroTestSupport
import MicroTesting
import Testing

/// What SCIM kept for a user (the client's id, the profile) goes with them however they are
/// removed, and a new holder of their name shares nothing with them, not even a stamp.
@Suite struct ScimLeftoversTests {
    private static let bob = """
        {"userName":"bob","externalId":"00u-old","displayName":"Old Bob","name":{"givenName":"Old"},"emails":[{"value":"old@example.com"}]}
        """

    private func expectNothingKept(for name: String, _ fixture: ScimFixture) async throws {
        let store = DatabaseScimStore(fixture.database)
        #expect(try await store.externalId(of: "User", name) == nil)
        #expect(try await store.profile(of: name) == nil)
        #expect(try await store.ids(of: "User", withExternalId: "00u-old").isEmpty)
    }

    @Test func aUserRemovedByACommandLeavesNoProfileOrExternalId() async throws {
        let fixture = try await ScimFixture.make()
        defer { Task { await fixture.close() } }
        #expect(try await fixture.send(.POST, "/scim/v2/Users", Self.bob).status == .created)
        #expect(try await DatabaseScimStore(fixture.database).externalId(of: "User", "bob") == "00u-old")
        // What `remove-user` does: the table's row, then what the account pages kept.
        #expect(try fixture.users.remove(username: "bob"))
        try await AccountLeftovers.forget("bob", in: fixture.database, features: [])
        try await expectNothingKept(for: "bob", fixture)
    }

    @Test func aUserRemovedOnTheUsersPageLeavesNoProfileOrExternalId() async throws {
        let fixture = try await ScimFixture.make()
        defer { Task { await fixture.close() } }
        #expect(try await fixture.send(.POST, "/scim/v2/Users", Self.bob).status == .created)
        let ann = TestClient(fixture.app)
        try await ann.signIn("ann", "ann-password")
        let removed = try await ann.post("/admin/users/remove", form: ["username": "bob", "current_password": "ann-password"])
        #expect(removed.status == .seeOther, "\(removed.text)")
        #expect(try fixture.stored("bob") == nil)
        try await expectNothingKept(for: "bob", fixture)
        // A bob added on the users page is answered without the old one's name or address.
        let added = try await ann.post(
            "/admin/users/add", form: ["new_username": "bob", "name": "", "roles": "", "password": "a new bob's password 1", "current_password": "ann-password"])
        #expect(added.status == .seeOther, "\(added.text)")
        let read = try ScimFixture.json(try await fixture.send(.GET, "/scim/v2/Users/bob"))
        #expect(read["externalId"] == nil, "\(read)")
        #expect(read["displayName"] as? String != "Old Bob" && read["emails"] == nil, "\(read)")
    }

    /// Without a password each holder's hash is their own: the removed bob's session (its
    /// stamp) does not stand for the bob added after him.
    @Test func twoHoldersOfANameWithoutAPasswordHaveDifferentStamps() async throws {
        let fixture = try await ScimFixture.make()
        defer { Task { await fixture.close() } }
        #expect(try await fixture.send(.POST, "/scim/v2/Users", Self.bob).status == .created)
        let old = try #require(try fixture.stored("bob"))
        #expect(try await fixture.send(.DELETE, "/scim/v2/Users/bob").status == .noContent)
        #expect(try await fixture.send(.POST, "/scim/v2/Users", #"{"userName":"bob"}"#).status == .created)
        let new = try #require(try fixture.stored("bob"))
        #expect(!old.hasPassword && !new.hasPassword)
        #expect(old.passwordHash != new.passwordHash)
        #expect(CredentialStamp(old) != CredentialStamp(new))
    }
}
