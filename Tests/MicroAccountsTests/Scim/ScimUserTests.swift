import Foundation
import Micro
@testable import MicroAccounts
import MicroTestSupport
import MicroTesting
import Testing

/// `/scim/v2/Users`: adding, reading, listing, filtering, replacing and removing users.
@Suite struct ScimUserTests {
    @Test func aUserAddedHasNoPasswordAndIsReadBackByIdAndFilter() async throws {
        let fixture = try await ScimFixture.make()
        defer { Task { await fixture.close() } }
        let made = try await fixture.send(.POST, "/scim/v2/Users", """
            {"schemas":["urn:ietf:params:scim:schemas:core:2.0:User"],"userName":"Bob.Jones@Example.com","externalId":"00u1",
             "name":{"givenName":"Bob","familyName":"Jones"},"emails":[{"value":"bob@example.com","type":"work","primary":true}],"active":true}
            """)
        #expect(made.status == .created, "\(made.text)")
        #expect(made.contentType?.hasPrefix("application/scim+json") == true)
        let body = try ScimFixture.json(made)
        #expect(body["id"] as? String == "bob.jones@example.com")
        #expect(body["userName"] as? String == "bob.jones@example.com")
        // No displayName was sent: none is answered, while pages show the one name makes.
        #expect(body["displayName"] == nil)
        #expect((body["name"] as? [String: Any])?["givenName"] as? String == "Bob")
        #expect((body["name"] as? [String: Any])?["familyName"] as? String == "Jones")
        #expect(body["active"] as? Bool == true)
        #expect(made.location?.hasSuffix("/scim/v2/Users/bob.jones@example.com") == true)
        let stored = try #require(try fixture.stored("bob.jones@example.com"))
        #expect(!stored.hasPassword)
        #expect(stored.user.email == "bob@example.com")
        #expect(stored.user.name == "Bob Jones")

        let read = try await fixture.send(.GET, "/scim/v2/Users/bob.jones%40example.com")
        #expect(read.status == .ok)
        #expect((try ScimFixture.json(read)["name"] as? [String: Any])?["familyName"] as? String == "Jones")
        let filtered = try ScimFixture.json(try await fixture.send(.GET, "/scim/v2/Users?filter=userName%20eq%20%22BOB.JONES%40example.com%22"))
        #expect(filtered["totalResults"] as? Int == 1)
        #expect((filtered["schemas"] as? [String]) == ["urn:ietf:params:scim:api:messages:2.0:ListResponse"])
        let byEmail = try ScimFixture.json(try await fixture.send(.GET, "/scim/v2/Users?filter=emails.value%20eq%20%22BOB%40example.com%22"))
        #expect(byEmail["totalResults"] as? Int == 1)
        let both = try ScimFixture.json(try await fixture.send(
            .GET, "/scim/v2/Users?filter=userName%20eq%20%22bob.jones%40example.com%22%20and%20active%20eq%20true"))
        #expect(both["totalResults"] as? Int == 1)
        let nobody = try ScimFixture.json(try await fixture.send(.GET, "/scim/v2/Users?filter=userName%20eq%20%22nobody%22"))
        #expect(nobody["totalResults"] as? Int == 0)
        #expect((nobody["Resources"] as? [Any])?.isEmpty == true)

        // Audit: added, by the token's name.
        let events = try await fixture.events(of: "bob.jones@example.com")
        #expect(events.contains { $0.event == ActivityEvent.Kind.userAdded && $0.detail == #"by scim "okta""# })
        // Its user's activity page shows it too: a set-up link or single sign-on lets them in.
    }

    @Test func anExistingUserNameIsUniquenessAndAnUnknownIdIs404() async throws {
        let fixture = try await ScimFixture.make()
        defer { Task { await fixture.close() } }
        let taken = try await fixture.send(.POST, "/scim/v2/Users", #"{"userName":"ANN"}"#)
        #expect(taken.status == .conflict)
        #expect(try ScimFixture.error(taken).scimType == "uniqueness")
        try await fixture.send(.POST, "/scim/v2/Users", #"{"userName":"carol","emails":[{"value":"carol@example.com"}]}"#)
        let sameMail = try await fixture.send(.POST, "/scim/v2/Users", #"{"userName":"dave","emails":[{"value":"CAROL@example.com"}]}"#)
        #expect(sameMail.status == .conflict)
        #expect(try ScimFixture.error(sameMail).scimType == "uniqueness")
        #expect(try fixture.stored("dave") == nil)
        let missing = try await fixture.send(.GET, "/scim/v2/Users/nobody")
        #expect(missing.status == .notFound)
        #expect(try ScimFixture.error(missing).status == "404")
        #expect(try await fixture.send(.DELETE, "/scim/v2/Users/nobody").status == .notFound)
        #expect(try await fixture.send(.GET, "/scim/v2/Elsewhere").status == .notFound)
    }

    @Test(arguments: [
        "ann\u{202E}evil", "\u{212B}ngstrom", "a\u{AD}b", "a\u{200B}b", "bad name", "ki\u{212A}", "a:b", "\u{1B}[31mred", "",
        String(repeating: "x", count: 300),
    ])
    func aNameTheStoreRefusesIsInvalidValue(_ name: String) async throws {
        let fixture = try await ScimFixture.make()
        defer { Task { await fixture.close() } }
        let body = String(decoding: try JSONSerialization.data(withJSONObject: ["userName": name]), as: UTF8.self)
        let refused = try await fixture.send(.POST, "/scim/v2/Users", body)
        #expect(refused.status == .badRequest, "\(refused.text)")
        #expect(try ScimFixture.error(refused).scimType == "invalidValue")
        #expect(try await fixture.users.managedUsers().count == 2)
    }

    @Test func aDisplayNameThatHidesItselfIsInvalidValue() async throws {
        let fixture = try await ScimFixture.make()
        defer { Task { await fixture.close() } }
        // Text-direction overrides, the Hangul fillers, other default-ignorables, spaces other
        // than U+0020, and more than 200 characters (the users page's rule).
        for name in [#"Eve\u202e nimda"#, #"\u3164"#, #"a\uFFA0"#, #"a\u034Fb"#, #"Ann\u00A0Smith"#, #"a\u3000b"#, #"\u2800"#, String(repeating: "é", count: 201)] {
            let refused = try await fixture.send(.POST, "/scim/v2/Users", #"{"userName":"eve","displayName":"\#(name)"}"#)
            #expect(refused.status == .badRequest, "\(name)")
            #expect(try ScimFixture.error(refused).scimType == "invalidValue")
        }
        #expect(try fixture.stored("eve") == nil)
        let patched = try await fixture.send(.PATCH, "/scim/v2/Users/user", #"{"Operations":[{"op":"replace","path":"displayName","value":"\u3164"}]}"#)
        #expect(patched.status == .badRequest)
        #expect(try await fixture.send(.POST, "/scim/v2/Users", #"{"userName":"eve","displayName":"\#(String(repeating: "é", count: 200))"}"#).status == .created)
    }

    @Test func theAuditQuotesTheNewNameAndTheToken() async throws {
        let fixture = try await ScimFixture.make()
        defer { Task { await fixture.close() } }
        #expect(try await fixture.send(.PATCH, "/scim/v2/Users/user", #"{"Operations":[{"op":"replace","path":"displayName","value":"x by alice"}]}"#).status == .ok)
        let events = try await fixture.events(of: "user").filter { $0.event == ActivityEvent.Kind.nameChanged }
        #expect(events.map(\.detail) == [#""x by alice" by scim "okta""#])
    }

    @Test func listsArePagedAndCountIsBounded() async throws {
        let fixture = try await ScimFixture.make()
        defer { Task { await fixture.close() } }
        for index in 0..<5 { try await fixture.send(.POST, "/scim/v2/Users", #"{"userName":"p\#(index)"}"#) }
        let page = try ScimFixture.json(try await fixture.send(.GET, "/scim/v2/Users?startIndex=2&count=3"))
        #expect(page["totalResults"] as? Int == 7)
        #expect(page["startIndex"] as? Int == 2)
        #expect(page["itemsPerPage"] as? Int == 3)
        let names = (page["Resources"] as? [[String: Any]])?.compactMap { $0["userName"] as? String }
        #expect(names == ["p0", "p1", "p2"])
        let huge = try ScimFixture.json(try await fixture.send(.GET, "/scim/v2/Users?count=100000000"))
        #expect(huge["itemsPerPage"] as? Int == 7)
        let none = try ScimFixture.json(try await fixture.send(.GET, "/scim/v2/Users?count=0"))
        #expect(none["totalResults"] as? Int == 7)
        #expect(none["itemsPerPage"] as? Int == 0)
        let bad = try await fixture.send(.GET, "/scim/v2/Users?count=many")
        #expect(bad.status == .badRequest)
        #expect(try ScimFixture.error(bad).scimType == "invalidValue")
    }

    @Test func putReplacesNameAndAddressAndRenamesKeepingTheId() async throws {
        let fixture = try await ScimFixture.make()
        defer { Task { await fixture.close() } }
        try await fixture.send(.POST, "/scim/v2/Users", #"{"userName":"frank","displayName":"Frank","emails":[{"value":"f@example.com"}]}"#)
        let replaced = try await fixture.send(.PUT, "/scim/v2/Users/frank", #"{"userName":"Frank","displayName":"Frank Ocean","emails":[{"value":"frank@example.com"}]}"#)
        #expect(replaced.status == .ok, "\(replaced.text)")
        #expect(try fixture.stored("frank")?.user.name == "Frank Ocean")
        #expect(try fixture.stored("frank")?.user.email == "frank@example.com")
        let renamed = try await fixture.send(.PUT, "/scim/v2/Users/frank", #"{"userName":"francis","displayName":"Frank Ocean","emails":[{"value":"frank@example.com"}]}"#)
        #expect(renamed.status == .ok, "\(renamed.text)")
        #expect(try ScimFixture.json(renamed)["id"] as? String == "frank")
        #expect(try ScimFixture.json(renamed)["userName"] as? String == "francis")
        #expect(try fixture.stored("frank") == nil)
        #expect(try fixture.stored("francis")?.user.name == "Frank Ocean")
        let events = try await fixture.events(of: "francis").map(\.event)
        #expect(events.contains(ActivityEvent.Kind.nameChanged))
        #expect(events.contains(ActivityEvent.Kind.emailChanged))
    }

    @Test func deleteRemovesTheUserAsTheUsersPageDoes() async throws {
        let fixture = try await ScimFixture.make()
        defer { Task { await fixture.close() } }
        let browser = TestClient(fixture.app)
        try await browser.signIn("user", "secret123")
        #expect(try await browser.get("/me", headers: ["Accept": "application/json"]).status == .ok)
        #expect(try await fixture.send(.DELETE, "/scim/v2/Users/user").status == .noContent)
        #expect(try fixture.stored("user") == nil)
        #expect(try await browser.get("/me", headers: ["Accept": "application/json"]).status == .unauthorized)
        let events = try await DatabaseActivityLog(fixture.database).events(of: nil, offset: 0, limit: 50)
        #expect(events.contains { $0.username == "user" && $0.event == ActivityEvent.Kind.userRemoved && $0.detail == #"by scim "okta""# })
        // An admin stays: SCIM does not remove one (ScimAdminTests).
        let last = try await fixture.send(.DELETE, "/scim/v2/Users/ann")
        #expect(last.status == .forbidden)
        #expect(try fixture.stored("ann") != nil)
    }

    @Test func discoveryDescribesWhatIsSupported() async throws {
        let fixture = try await ScimFixture.make()
        defer { Task { await fixture.close() } }
        let config = try ScimFixture.json(try await fixture.send(.GET, "/scim/v2/ServiceProviderConfig"))
        #expect((config["patch"] as? [String: Any])?["supported"] as? Bool == true)
        #expect((config["bulk"] as? [String: Any])?["supported"] as? Bool == false)
        let types = try ScimFixture.json(try await fixture.send(.GET, "/scim/v2/ResourceTypes"))
        #expect(types["totalResults"] as? Int == 2)
        let schemas = try ScimFixture.json(try await fixture.send(.GET, "/scim/v2/Schemas"))
        let ids = (schemas["Resources"] as? [[String: Any]])?.compactMap { $0["id"] as? String }
        #expect(ids == ["urn:ietf:params:scim:schemas:core:2.0:User", "urn:ietf:params:scim:schemas:core:2.0:Group"])
        #expect(try await fixture.send(.GET, "/scim/v2/Schemas/urn:ietf:params:scim:schemas:core:2.0:User").status == .ok)
        #expect(try await fixture.send(.GET, "/scim/v2/ResourceTypes/User").status == .ok)
        #expect(try await fixture.send(.GET, "/scim/v2/ResourceTypes/Nope").status == .notFound)
    }
}
