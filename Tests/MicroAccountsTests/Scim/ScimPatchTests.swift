import Foundation
import Micro
@testable import MicroAccounts
import MicroTestSupport
import MicroTesting
import Testing

/// PATCH on users, as Entra and Okta send it (RFC 7644 3.5.2).
@Suite struct ScimPatchTests {
    private func made(_ fixture: ScimFixture, _ name: String = "gina") async throws {
        let answer = try await fixture.send(.POST, "/scim/v2/Users", #"{"userName":"\#(name)","displayName":"Gina","emails":[{"value":"\#(name)@example.com","type":"work","primary":true}]}"#)
        #expect(answer.status == .created)
    }

    @Test func entraStyleOperationsWithPathsAndCapitalisedOpsAndStringBooleans() async throws {
        let fixture = try await ScimFixture.make()
        defer { Task { await fixture.close() } }
        try await made(fixture)
        let patched = try await fixture.send(.PATCH, "/scim/v2/Users/gina", """
            {"schemas":["urn:ietf:params:scim:api:messages:2.0:PatchOp"],"Operations":[
              {"op":"Replace","path":"displayName","value":"Gina Lollo"},
              {"op":"Replace","path":"emails[type eq \\"work\\"].value","value":"gina.lollo@example.com"},
              {"op":"Add","path":"title","value":"Engineer"},
              {"op":"Replace","path":"urn:ietf:params:scim:schemas:extension:enterprise:2.0:User:department","value":"R&D"},
              {"op":"Replace","path":"active","value":"False"}]}
            """)
        #expect(patched.status == .ok, "\(patched.text)")
        let body = try ScimFixture.json(patched)
        #expect(body["active"] as? Bool == false)
        #expect(body["displayName"] as? String == "Gina Lollo")
        let stored = try #require(try fixture.stored("gina"))
        #expect(stored.isDisabled)
        #expect(stored.user.email == "gina.lollo@example.com")
        let again = try await fixture.send(.PATCH, "/scim/v2/Users/gina", #"{"Operations":[{"op":"replace","path":"active","value":"True"}]}"#)
        #expect(again.status == .ok)
        #expect(try fixture.stored("gina")?.isDisabled == false)
    }

    @Test func oktaStyleOperationsWithoutPath() async throws {
        let fixture = try await ScimFixture.make()
        defer { Task { await fixture.close() } }
        try await made(fixture)
        let off = try await fixture.send(.PATCH, "/scim/v2/Users/gina", #"{"schemas":["urn:ietf:params:scim:api:messages:2.0:PatchOp"],"Operations":[{"op":"replace","value":{"active":false}}]}"#)
        #expect(off.status == .ok, "\(off.text)")
        #expect(try fixture.stored("gina")?.isDisabled == true)
        let renamed = try await fixture.send(.PATCH, "/scim/v2/Users/gina", """
            {"Operations":[{"op":"replace","value":{"displayName":"G. L.","emails":[{"value":"gl@example.com","primary":true}],"userName":"GINA"}}]}
            """)
        #expect(renamed.status == .ok, "\(renamed.text)")
        #expect(try fixture.stored("gina")?.user.name == "G. L.")
        #expect(try fixture.stored("gina")?.user.email == "gl@example.com")
    }

    @Test func removeTakesTheAddressAndTheDisplayName() async throws {
        let fixture = try await ScimFixture.make()
        defer { Task { await fixture.close() } }
        try await made(fixture)
        let removed = try await fixture.send(.PATCH, "/scim/v2/Users/gina", #"{"Operations":[{"op":"remove","path":"emails"},{"op":"remove","path":"displayName"}]}"#)
        #expect(removed.status == .ok, "\(removed.text)")
        #expect(try fixture.stored("gina")?.user.email == nil)
        #expect(try fixture.stored("gina")?.user.name == "Gina")
        let added = try await fixture.send(.PATCH, "/scim/v2/Users/gina", #"{"Operations":[{"op":"add","path":"emails","value":[{"value":"g2@example.com"}]}]}"#)
        #expect(added.status == .ok)
        #expect(try fixture.stored("gina")?.user.email == "g2@example.com")
    }

    @Test func refusalsOfPatchChangeNothing() async throws {
        let fixture = try await ScimFixture.make()
        defer { Task { await fixture.close() } }
        try await made(fixture)
        let cases: [(String, String)] = [
            (#"{"Operations":[{"op":"replace","path":"displayName","value":"ok"},{"op":"replace","path":"userName","value":"some one"}]}"#, "invalidValue"),
            (#"{"Operations":[{"op":"remove","path":"userName"}]}"#, "mutability"),
            (#"{"Operations":[{"op":"remove"}]}"#, "noTarget"),
            (#"{"Operations":[{"op":"replace","path":"active","value":"maybe"}]}"#, "invalidValue"),
            (#"{"Operations":[{"op":"frobnicate","path":"active","value":true}]}"#, "invalidSyntax"),
            (#"{"Operations":[{"op":"replace","path":"emails[type eq","value":"x@example.com"}]}"#, "invalidPath"),
            (#"{"Operations":[{"op":"replace","path":"groups","value":[]}]}"#, "mutability"),
            (#"{"Operations":[{"op":"replace","path":"emails","value":[{"value":"ann@"}]}]}"#, "invalidValue"),
            (#"{"nothing":"here"}"#, "invalidSyntax"),
        ]
        for (body, type) in cases {
            let refused = try await fixture.send(.PATCH, "/scim/v2/Users/gina", body)
            #expect(refused.status == .badRequest, "\(body): \(refused.text)")
            #expect(try ScimFixture.error(refused).scimType == type, "\(body)")
        }
        #expect(try fixture.stored("gina")?.user.name == "Gina")
        #expect(try fixture.stored("gina")?.isDisabled == false)
        let many = "{\"Operations\":[" + Array(repeating: #"{"op":"replace","path":"displayName","value":"x"}"#, count: 101).joined(separator: ",") + "]}"
        let tooMany = try await fixture.send(.PATCH, "/scim/v2/Users/gina", many)
        #expect(tooMany.status == .badRequest)
        #expect(try await fixture.send(.PATCH, "/scim/v2/Users/nobody", #"{"Operations":[{"op":"replace","path":"active","value":false}]}"#).status == .notFound)
    }

    @Test func aTakenAddressIsUniqueness() async throws {
        let fixture = try await ScimFixture.make()
        defer { Task { await fixture.close() } }
        try await made(fixture)
        try await made(fixture, "hugo")
        _ = try await fixture.send(.PATCH, "/scim/v2/Users/hugo", #"{"Operations":[{"op":"replace","path":"emails","value":[{"value":"hugo@example.com"}]}]}"#)
        let taken = try await fixture.send(
            .PATCH, "/scim/v2/Users/hugo", #"{"Operations":[{"op":"replace","path":"displayName","value":"Hugo H"},{"op":"replace","path":"emails","value":[{"value":"GINA@example.com"}]}]}"#)
        #expect(taken.status == .conflict, "\(taken.text)")
        #expect(try ScimFixture.error(taken).scimType == "uniqueness")
        #expect(try fixture.stored("hugo")?.user.name == "Gina")
        #expect(try fixture.stored("hugo")?.user.email == "hugo@example.com")
    }
}
