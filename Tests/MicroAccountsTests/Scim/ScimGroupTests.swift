import Foundation
import Micro
@testable import MicroAccounts
import MicroAuth
import MicroTestSupport
import MicroTesting
import Testing

/// `/scim/v2/Groups`: a group is a role, its members the users who hold it.
@Suite struct ScimGroupTests {
    @Test func aGroupMadeWithMembersGivesThemTheRoleAndPatchChangesWhoHoldsIt() async throws {
        let fixture = try await ScimFixture.make()
        defer { Task { await fixture.close() } }
        let browser = TestClient(fixture.app)
        try await browser.signIn("user", "secret123")
        let made = try await fixture.send(.POST, "/scim/v2/Groups", #"{"schemas":["urn:ietf:params:scim:schemas:core:2.0:Group"],"displayName":"Editors","members":[{"value":"user"}]}"#)
        #expect(made.status == .created, "\(made.text)")
        let body = try ScimFixture.json(made)
        #expect(body["id"] as? String == "editors")
        #expect(try fixture.stored("user")?.user.roles == ["editors"])
        // As a roles change on the users page: the user's session ends, the next sign-in brings the role.
        #expect(try await browser.get("/me", headers: ["Accept": "application/json"]).status == .unauthorized)
        #expect(try await fixture.send(.POST, "/scim/v2/Groups", #"{"displayName":"editors"}"#).status == .conflict)

        let added = try await fixture.send(.PATCH, "/scim/v2/Groups/editors", #"{"Operations":[{"op":"Add","path":"members","value":[{"value":"ann"}]}]}"#)
        #expect(added.status == .ok, "\(added.text)")
        #expect(try fixture.stored("ann")?.user.roles == ["admin", "editors"])
        let removedByFilter = try await fixture.send(.PATCH, "/scim/v2/Groups/editors", #"{"Operations":[{"op":"remove","path":"members[value eq \"user\"]"}]}"#)
        #expect(removedByFilter.status == .ok)
        #expect(try fixture.stored("user")?.user.roles == [])
        let removedByValue = try await fixture.send(.PATCH, "/scim/v2/Groups/editors", #"{"Operations":[{"op":"Remove","path":"members","value":[{"value":"ann"}]}]}"#)
        #expect(removedByValue.status == .ok)
        #expect(try fixture.stored("ann")?.user.roles == ["admin"])
        // Kept while empty: still found.
        let empty = try ScimFixture.json(try await fixture.send(.GET, "/scim/v2/Groups/editors"))
        #expect((empty["members"] as? [Any])?.isEmpty == true)

        let listed = try ScimFixture.json(try await fixture.send(.GET, "/scim/v2/Groups?filter=displayName%20eq%20%22Editors%22&excludedAttributes=members"))
        #expect(listed["totalResults"] as? Int == 1)
        #expect((listed["Resources"] as? [[String: Any]])?.first?["members"] == nil)
        let events = try await fixture.events(of: "ann").filter { $0.event == ActivityEvent.Kind.rolesChanged }
        #expect(events.count == 2)
        #expect(events.allSatisfy { $0.detail.hasSuffix(#"by scim "okta""#) })
    }

    @Test func groupChangesAtOnceForOneUserKeepEachOthersRoles() async throws {
        let fixture = try await ScimFixture.make()
        defer { Task { await fixture.close() } }
        let groups = (0..<8).map { "team\($0)" }
        for group in groups { #expect(try await fixture.send(.POST, "/scim/v2/Groups", #"{"displayName":"\#(group)"}"#).status == .created) }
        try await withThrowingTaskGroup(of: HttpStatus.self) { tasks in
            for group in groups {
                tasks.addTask {
                    try await fixture.send(.PATCH, "/scim/v2/Groups/\(group)", #"{"Operations":[{"op":"add","path":"members","value":[{"value":"user"}]}]}"#).status
                }
            }
            for try await status in tasks { #expect(status == .ok) }
        }
        #expect(Set(try fixture.stored("user")?.user.roles ?? []) == Set(groups))
        try await withThrowingTaskGroup(of: HttpStatus.self) { tasks in
            for group in groups.prefix(4) {
                tasks.addTask {
                    try await fixture.send(.PATCH, "/scim/v2/Groups/\(group)", #"{"Operations":[{"op":"remove","path":"members[value eq \"user\"]"}]}"#).status
                }
            }
            for try await status in tasks { #expect(status == .ok) }
        }
        #expect(Set(try fixture.stored("user")?.user.roles ?? []) == Set(groups.suffix(4)))
    }

    @Test func putReplacesMembersAndDeleteTakesTheRoleFromEveryone() async throws {
        let fixture = try await ScimFixture.make(managesAdmins: true)
        defer { Task { await fixture.close() } }
        try await fixture.send(.POST, "/scim/v2/Groups", #"{"displayName":"ops","members":[{"value":"user"}]}"#)
        let replaced = try await fixture.send(.PUT, "/scim/v2/Groups/ops", #"{"displayName":"ops","members":[{"value":"ann"}]}"#)
        #expect(replaced.status == .ok, "\(replaced.text)")
        #expect(try fixture.stored("ann")?.user.roles == ["admin", "ops"])
        #expect(try fixture.stored("user")?.user.roles == [])
        let toAdmins = try await fixture.send(.PUT, "/scim/v2/Groups/ops", #"{"displayName":"admin","members":[{"value":"ann"}]}"#)
        #expect(toAdmins.status == .badRequest)
        #expect(try ScimFixture.error(toAdmins).scimType == "invalidValue")
        #expect(try fixture.stored("ann")?.user.roles == ["admin", "ops"])
        #expect(try await fixture.send(.DELETE, "/scim/v2/Groups/ops").status == .noContent)
        #expect(try fixture.stored("ann")?.user.roles == ["admin"])
        #expect(try await fixture.send(.GET, "/scim/v2/Groups/ops").status == .notFound)
        #expect(try await fixture.send(.DELETE, "/scim/v2/Groups/ops").status == .notFound)
        // With managesAdmins, the admin role is a group too: it keeps an enabled holder, and a
        // refusal changes nothing.
        #expect(try await fixture.send(.PATCH, "/scim/v2/Groups/admin", #"{"Operations":[{"op":"add","path":"members","value":[{"value":"user"}]}]}"#).status == .ok)
        let last = try await fixture.send(.DELETE, "/scim/v2/Groups/admin")
        #expect(last.status == .conflict)
        let emptied = try await fixture.send(.PUT, "/scim/v2/Groups/admin", #"{"displayName":"admin","members":[]}"#)
        #expect(emptied.status == .conflict)
        #expect(try fixture.stored("ann")?.user.roles == ["admin"])
        #expect(try fixture.stored("user")?.user.roles == ["admin"])
    }

    @Test func aGroupNameThatIsNoRoleAndAnUnknownMemberAreInvalidValue() async throws {
        let fixture = try await ScimFixture.make()
        defer { Task { await fixture.close() } }
        let spaced = try await fixture.send(.POST, "/scim/v2/Groups", #"{"displayName":"Sales Team"}"#)
        #expect(spaced.status == .badRequest)
        #expect(try ScimFixture.error(spaced).scimType == "invalidValue")
        let stranger = try await fixture.send(.POST, "/scim/v2/Groups", #"{"displayName":"sales","members":[{"value":"nobody"}]}"#)
        #expect(stranger.status == .badRequest)
        #expect(try ScimFixture.error(stranger).scimType == "invalidValue")
        #expect(try await fixture.send(.GET, "/scim/v2/Groups/3f2a9c1e-0000-4000-8000-000000000000").status == .notFound)
        let unsupported = try await fixture.send(.GET, "/scim/v2/Groups?filter=members.value%20eq%20%22ann%22")
        #expect(unsupported.status == .badRequest)
        #expect(try ScimFixture.error(unsupported).scimType == "invalidFilter")
    }

    @Test func oktasReplaceWithTheGroupsOwnIdAndNameIsTaken() async throws {
        let fixture = try await ScimFixture.make()
        defer { Task { await fixture.close() } }
        #expect(try await fixture.send(.POST, "/scim/v2/Groups", #"{"displayName":"ops"}"#).status == .created)
        let okta = try await fixture.send(.PATCH, "/scim/v2/Groups/ops", #"{"Operations":[{"op":"replace","value":{"id":"ops","displayName":"ops"}},{"op":"add","path":"members","value":[{"value":"user"}]}]}"#)
        #expect(okta.status == .ok, "\(okta.text)")
        #expect(try fixture.stored("user")?.user.roles == ["ops"])
        for (value, type) in [(#"{"id":"other"}"#, "mutability"), (#"{"displayName":"admin"}"#, "invalidValue")] {
            let refused = try await fixture.send(.PATCH, "/scim/v2/Groups/ops", #"{"Operations":[{"op":"replace","value":\#(value)}]}"#)
            #expect(refused.status == .badRequest, "\(value)")
            #expect(try ScimFixture.error(refused).scimType == type)
        }
        #expect(try fixture.stored("user")?.user.roles == ["ops"])
    }

    @Test func theMemberCapIsPerRequestNotTheGroupsSize() throws {
        let names = (0...ScimGroup.maxMembers).map { "u\($0)" }
        let users = names.map { ManagedUser(user: User(username: $0), isDisabled: false, passwordChangeDue: false) }
        // A group grown past the cap by several requests still takes the next one.
        try ScimRoutes.check(Set(names), among: users)
        // One request naming more than the cap is refused where it is read.
        let list = ScimJson.array(names.map { .object([("value", .string($0))]) })
        #expect(throws: ScimError.self) { try ScimGroup.memberIds(list) }
    }
}
