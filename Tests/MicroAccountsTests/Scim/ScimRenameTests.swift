import Foundation
import Micro
@testable import MicroAccounts
import MicroAuth
import MicroCore
import MicroTestSupport
import MicroTesting
import SQLKit
import Testing

/// Renames through SCIM: a user's `userName` and a group's `displayName` change, while the `id`
/// the provider holds keeps naming the same user or group.
@Suite struct ScimRenameTests {
    private func made(_ fixture: ScimFixture, _ name: String) async throws {
        let answer = try await fixture.send(.POST, "/scim/v2/Users", #"{"userName":"\#(name)","displayName":"\#(name.capitalized)"}"#)
        #expect(answer.status == .created, "\(answer.text)")
    }

    /// The rows of the user ids' map, as `id: username`.
    private func userIdRows(_ fixture: ScimFixture) async throws -> [String: String] {
        try await fixture.database.run("read the map") { sql in
            try await sql.select().column("id").column("username").from("micro_scim_user_ids").all()
                .reduce(into: [String: String]()) { $0[try $1.decode(column: "id", as: String.self)] = try $1.decode(column: "username", as: String.self) }
        }
    }

    @Test func putAndPatchRenameAndTheIdKeepsFindingTheUser() async throws {
        let fixture = try await ScimFixture.make()
        defer { Task { await fixture.close() } }
        try await made(fixture, "frank")
        let put = try await fixture.send(.PUT, "/scim/v2/Users/frank", #"{"userName":"francis","displayName":"Frank"}"#)
        #expect(put.status == .ok, "\(put.text)")
        let body = try ScimFixture.json(put)
        #expect(body["id"] as? String == "frank")
        #expect(body["userName"] as? String == "francis")
        #expect(((body["meta"] as? [String: Any])?["location"] as? String)?.hasSuffix("/scim/v2/Users/frank") == true)
        #expect(try fixture.stored("frank") == nil)
        #expect(try fixture.stored("francis")?.user.name == "Frank")

        let read = try await fixture.send(.GET, "/scim/v2/Users/frank")
        #expect(read.status == .ok)
        #expect(try ScimFixture.json(read)["userName"] as? String == "francis")
        // The new name is no id: the user's id is still their first.
        #expect(try await fixture.send(.GET, "/scim/v2/Users/francis").status == .notFound)

        let patch = try await fixture.send(.PATCH, "/scim/v2/Users/frank", #"{"Operations":[{"op":"replace","path":"userName","value":"Frankie"}]}"#)
        #expect(patch.status == .ok, "\(patch.text)")
        #expect(try ScimFixture.json(patch)["id"] as? String == "frank")
        #expect(try ScimFixture.json(patch)["userName"] as? String == "frankie")
        #expect(try fixture.stored("francis") == nil)
        #expect(try fixture.stored("frankie") != nil)
        #expect(try await userIdRows(fixture) == ["frank": "frankie"])

        // Each rename is the user's account event, naming the client.
        let renames = try await fixture.events(of: "frankie").filter { $0.event == ActivityEvent.Kind.renamed }.map(\.detail)
        #expect(renames.contains(#"from francis by scim "okta""#))
        #expect(renames.contains(#"from frank by scim "okta""#))

        // Renamed back, the id is the name again and needs no row.
        #expect(try await fixture.send(.PATCH, "/scim/v2/Users/frank", #"{"Operations":[{"op":"replace","value":{"userName":"frank"}}]}"#).status == .ok)
        #expect(try await userIdRows(fixture).isEmpty)
        #expect(try ScimFixture.json(try await fixture.send(.GET, "/scim/v2/Users/frank"))["userName"] as? String == "frank")
    }

    @Test func aNewUserOfTheOldNameGetsAnIdOfTheirOwn() async throws {
        let fixture = try await ScimFixture.make()
        defer { Task { await fixture.close() } }
        try await made(fixture, "frank")
        #expect(try await fixture.send(.PUT, "/scim/v2/Users/frank", #"{"userName":"francis"}"#).status == .ok)
        let again = try await fixture.send(.POST, "/scim/v2/Users", #"{"userName":"frank"}"#)
        #expect(again.status == .created, "\(again.text)")
        let newId = try #require(try ScimFixture.json(again)["id"] as? String)
        #expect(newId != "frank")
        #expect(again.location?.hasSuffix("/scim/v2/Users/" + newId) == true)
        #expect(try ScimFixture.json(try await fixture.send(.GET, "/scim/v2/Users/frank"))["userName"] as? String == "francis")
        #expect(try ScimFixture.json(try await fixture.send(.GET, "/scim/v2/Users/" + newId))["userName"] as? String == "frank")

        // A user the users page adds under the old name is given one too, when SCIM first answers them.
        #expect(try await fixture.send(.DELETE, "/scim/v2/Users/" + newId).status == .noContent)
        _ = try await fixture.users.addUser(
            username: "frank", name: nil, roles: [], email: nil, passwordHash: StoredUser.noPasswordHash, passwordChangeDue: false, disabled: false)
        let listed = try ScimFixture.json(try await fixture.send(.GET, "/scim/v2/Users?filter=userName%20eq%20%22frank%22"))
        let listedId = try #require(((listed["Resources"] as? [[String: Any]])?.first)?["id"] as? String)
        #expect(listedId != "frank")
        #expect(try ScimFixture.json(try await fixture.send(.GET, "/scim/v2/Users/" + listedId))["userName"] as? String == "frank")
        #expect(try ScimFixture.json(try await fixture.send(.GET, "/scim/v2/Users/frank"))["userName"] as? String == "francis")
    }

    @Test func idFiltersAndGroupMembersUseTheStableId() async throws {
        let fixture = try await ScimFixture.make()
        defer { Task { await fixture.close() } }
        try await made(fixture, "frank")
        #expect(try await fixture.send(.POST, "/scim/v2/Groups", #"{"displayName":"ops","members":[{"value":"frank"}]}"#).status == .created)
        #expect(try await fixture.send(.PUT, "/scim/v2/Users/frank", #"{"userName":"francis"}"#).status == .ok)
        let byId = try ScimFixture.json(try await fixture.send(.GET, "/scim/v2/Users?filter=id%20eq%20%22frank%22"))
        #expect(byId["totalResults"] as? Int == 1)
        #expect(((byId["Resources"] as? [[String: Any]])?.first)?["userName"] as? String == "francis")
        let both = try ScimFixture.json(try await fixture.send(.GET, "/scim/v2/Users?filter=userName%20eq%20%22francis%22%20and%20id%20eq%20%22frank%22"))
        #expect(both["totalResults"] as? Int == 1)
        let byNewName = try ScimFixture.json(try await fixture.send(.GET, "/scim/v2/Users?filter=id%20eq%20%22francis%22"))
        #expect(byNewName["totalResults"] as? Int == 0)

        let group = try ScimFixture.json(try await fixture.send(.GET, "/scim/v2/Groups/ops"))
        let member = try #require((group["members"] as? [[String: Any]])?.first)
        #expect(member["value"] as? String == "frank")
        #expect((member["$ref"] as? String)?.hasSuffix("/scim/v2/Users/frank") == true)
        // A member named by the stable id; removed by it.
        #expect(try await fixture.send(.PATCH, "/scim/v2/Groups/ops", #"{"Operations":[{"op":"remove","path":"members[value eq \"frank\"]"}]}"#).status == .ok)
        #expect(try fixture.stored("francis")?.user.roles == [])
        #expect(try await fixture.send(.PATCH, "/scim/v2/Groups/ops", #"{"Operations":[{"op":"add","path":"members","value":[{"value":"frank"}]}]}"#).status == .ok)
        #expect(try fixture.stored("francis")?.user.roles == ["ops"])
        // The new name is no member's id.
        let stranger = try await fixture.send(.PATCH, "/scim/v2/Groups/ops", #"{"Operations":[{"op":"add","path":"members","value":[{"value":"francis"}]}]}"#)
        #expect(stranger.status == .badRequest)
        #expect(try ScimFixture.error(stranger).scimType == "invalidValue")
    }

    @Test func aTakenNameIsUniquenessAndChangesNothing() async throws {
        let fixture = try await ScimFixture.make()
        defer { Task { await fixture.close() } }
        try await made(fixture, "frank")
        let userBefore = try fixture.stored("user")?.user
        let taken = try await fixture.send(.PUT, "/scim/v2/Users/frank", #"{"userName":"USER","displayName":"Someone Else"}"#)
        #expect(taken.status == .conflict, "\(taken.text)")
        #expect(try ScimFixture.error(taken).scimType == "uniqueness")
        let patched = try await fixture.send(
            .PATCH, "/scim/v2/Users/frank", #"{"Operations":[{"op":"replace","path":"displayName","value":"Other"},{"op":"replace","path":"userName","value":"ann"}]}"#)
        #expect(patched.status == .conflict)
        #expect(try ScimFixture.error(patched).scimType == "uniqueness")
        #expect(try fixture.stored("frank")?.user.name == "Frank")
        #expect(try fixture.stored("user")?.user == userBefore)
        #expect(try fixture.stored("ann")?.user.name == "Ann Smith")
        #expect(try await userIdRows(fixture).isEmpty)
        #expect(try await fixture.events(of: "frank").allSatisfy { $0.event != ActivityEvent.Kind.renamed })
    }

    @Test(arguments: [
        "fr\u{202E}ank", "fr\u{200B}ank", "fr\u{AD}ank", "\u{212A}elvin", "frank name", "a:b", "\u{1B}[31mred", "u\u{0455}er", "\u{0430}nn",
        String(repeating: "x", count: 300),
    ])
    func aHostileNameIsInvalidValue(_ name: String) async throws {
        let fixture = try await ScimFixture.make()
        defer { Task { await fixture.close() } }
        try await made(fixture, "frank")
        let body = String(decoding: try JSONSerialization.data(withJSONObject: ["userName": name]), as: UTF8.self)
        let put = try await fixture.send(.PUT, "/scim/v2/Users/frank", body)
        #expect(put.status == .badRequest, "\(put.text)")
        #expect(try ScimFixture.error(put).scimType == "invalidValue")
        let operations = String(
            decoding: try JSONSerialization.data(withJSONObject: ["Operations": [["op": "replace", "path": "userName", "value": name]]]), as: UTF8.self)
        let patch = try await fixture.send(.PATCH, "/scim/v2/Users/frank", operations)
        #expect(patch.status == .badRequest, "\(patch.text)")
        #expect(try ScimFixture.error(patch).scimType == "invalidValue")
        #expect(try fixture.stored("frank") != nil)
        #expect(try await userIdRows(fixture).isEmpty)
    }

    @Test func anAdminIsNotRenamedUnlessScimManagesAdmins() async throws {
        let fixture = try await ScimFixture.make()
        defer { Task { await fixture.close() } }
        let refused = try await fixture.send(.PUT, "/scim/v2/Users/ann", #"{"userName":"anna","displayName":"Ann Smith"}"#)
        #expect(refused.status == .forbidden)
        #expect(try fixture.stored("ann") != nil)
    }

    @Test func removalForgetsTheIdAndTheOldIdNamesNobody() async throws {
        let fixture = try await ScimFixture.make()
        defer { Task { await fixture.close() } }
        try await made(fixture, "frank")
        #expect(try await fixture.send(.PUT, "/scim/v2/Users/frank", #"{"userName":"francis"}"#).status == .ok)
        #expect(try await userIdRows(fixture) == ["frank": "francis"])
        #expect(try await fixture.send(.DELETE, "/scim/v2/Users/frank").status == .noContent)
        #expect(try await userIdRows(fixture).isEmpty)
        #expect(try await fixture.send(.GET, "/scim/v2/Users/frank").status == .notFound)
        // A later francis is francis.
        let again = try await fixture.send(.POST, "/scim/v2/Users", #"{"userName":"francis"}"#)
        #expect(try ScimFixture.json(again)["id"] as? String == "francis")
    }

    @Test func aRenameOutsideScimMovesTheIdToo() async throws {
        let fixture = try await ScimFixture.make()
        defer { Task { await fixture.close() } }
        try await made(fixture, "gina")
        // What `rename-user` does: the table, then the leftovers.
        #expect(try await fixture.users.rename("gina", to: "gin") == .done)
        try await AccountLeftovers.carry("gina", to: "gin", in: fixture.database)
        #expect(try ScimFixture.json(try await fixture.send(.GET, "/scim/v2/Users/gina"))["userName"] as? String == "gin")
        // `remove-user`'s forgetting forgets it.
        _ = try await fixture.users.removeUser(username: "gin", keepingOne: "admin")
        try await AccountLeftovers.forget("gin", in: fixture.database)
        #expect(try await userIdRows(fixture).isEmpty)
    }

    @Test func renamesAtOnceOfOneUserLeaveOneNameAndOneId() async throws {
        let fixture = try await ScimFixture.make()
        defer { Task { await fixture.close() } }
        try await made(fixture, "frank")
        let names = (0..<8).map { "name\($0)" }
        let statuses = try await withThrowingTaskGroup(of: HttpStatus.self) { tasks in
            for name in names {
                tasks.addTask { try await fixture.send(.PUT, "/scim/v2/Users/frank", #"{"userName":"\#(name)"}"#).status }
            }
            return try await tasks.reduce(into: [HttpStatus]()) { $0.append($1) }
        }
        #expect(statuses.allSatisfy { $0 == .ok }, "\(statuses)")
        let left = try names.filter { try fixture.stored($0) != nil }
        #expect(left.count == 1)
        let rows = try await userIdRows(fixture)
        #expect(rows == ["frank": try #require(left.first)])
        #expect(try ScimFixture.json(try await fixture.send(.GET, "/scim/v2/Users/frank"))["userName"] as? String == left.first)
    }

    @Test func aGroupRenamedKeepsItsIdAndItsHoldersGetTheNewRole() async throws {
        let fixture = try await ScimFixture.make()
        defer { Task { await fixture.close() } }
        #expect(try await fixture.send(.POST, "/scim/v2/Groups", #"{"displayName":"ops","externalId":"g1","members":[{"value":"user"}]}"#).status == .created)
        #expect(try await fixture.send(.POST, "/scim/v2/Groups", #"{"displayName":"empty"}"#).status == .created)
        let put = try await fixture.send(.PUT, "/scim/v2/Groups/ops", #"{"displayName":"DevOps","externalId":"g1","members":[{"value":"user"}]}"#)
        #expect(put.status == .ok, "\(put.text)")
        #expect(try ScimFixture.json(put)["id"] as? String == "ops")
        #expect(try ScimFixture.json(put)["displayName"] as? String == "devops")
        #expect(try fixture.stored("user")?.user.roles == ["devops"])
        let read = try ScimFixture.json(try await fixture.send(.GET, "/scim/v2/Groups/ops"))
        #expect(read["displayName"] as? String == "devops")
        #expect(read["externalId"] as? String == "g1")
        let user = try ScimFixture.json(try await fixture.send(.GET, "/scim/v2/Users/user"))
        #expect(((user["groups"] as? [[String: Any]])?.first)?["value"] as? String == "ops")
        let events = try await fixture.events(of: "user").filter { $0.event == ActivityEvent.Kind.rolesChanged }
        #expect(events.first?.detail == #"devops (group ops renamed devops) by scim "okta""#)

        // An empty group, kept by SCIM, renamed by PATCH.
        let patch = try await fixture.send(.PATCH, "/scim/v2/Groups/empty", #"{"Operations":[{"op":"replace","path":"displayName","value":"vacant"}]}"#)
        #expect(patch.status == .ok, "\(patch.text)")
        #expect(try ScimFixture.json(try await fixture.send(.GET, "/scim/v2/Groups/empty"))["displayName"] as? String == "vacant")
        let byId = try ScimFixture.json(try await fixture.send(.GET, "/scim/v2/Groups?filter=id%20eq%20%22empty%22"))
        #expect(((byId["Resources"] as? [[String: Any]])?.first)?["displayName"] as? String == "vacant")

        // Taken, the admins' role, and a name that is no role: refused, nothing changed.
        for (body, status, type) in [
            (#"{"displayName":"vacant","members":[{"value":"user"}]}"#, HttpStatus.conflict, "uniqueness"),
            (#"{"displayName":"admin","members":[{"value":"user"}]}"#, .badRequest, "invalidValue"),
            (#"{"displayName":"dev ops","members":[{"value":"user"}]}"#, .badRequest, "invalidValue"),
            (#"{"displayName":"dev\u202eops","members":[{"value":"user"}]}"#, .badRequest, "invalidValue"),
        ] {
            let refused = try await fixture.send(.PUT, "/scim/v2/Groups/ops", body)
            #expect(refused.status == status, "\(body): \(refused.text)")
            #expect(try ScimFixture.error(refused).scimType == type)
        }
        #expect(try fixture.stored("user")?.user.roles == ["devops"])

        // A new group of the old name gets an id of its own.
        let again = try await fixture.send(.POST, "/scim/v2/Groups", #"{"displayName":"ops"}"#)
        #expect(again.status == .created, "\(again.text)")
        let newId = try #require(try ScimFixture.json(again)["id"] as? String)
        #expect(newId != "ops")
        #expect(try ScimFixture.json(try await fixture.send(.GET, "/scim/v2/Groups/" + newId))["displayName"] as? String == "ops")
        #expect(try ScimFixture.json(try await fixture.send(.GET, "/scim/v2/Groups/ops"))["displayName"] as? String == "devops")
    }

    @Test func theAdminsGroupIsNotRenamedEvenWhenScimManagesAdmins() async throws {
        let fixture = try await ScimFixture.make(managesAdmins: true)
        defer { Task { await fixture.close() } }
        let refused = try await fixture.send(.PUT, "/scim/v2/Groups/admin", #"{"displayName":"bosses","members":[{"value":"ann"}]}"#)
        #expect(refused.status == .badRequest)
        #expect(try ScimFixture.error(refused).scimType == "mutability")
        #expect(try fixture.stored("ann")?.user.roles == ["admin"])
        #expect(try await fixture.users.renameRole("ops", to: "admin", keepingOne: "admin") == .adminRole)
    }
}
