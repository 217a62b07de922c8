import Foundation
import Micro
@testable import MicroAccounts
import MicroTestSupport
import MicroTesting
import Testing

/// What a list or a read may ask beside a filter: `attributes`, `excludedAttributes`, a
/// `POST .search`; and the methods an endpoint does not take.
@Suite struct ScimQueryTests {
    @Test func attributesAndExcludedAttributesShapeTheAnswer() async throws {
        let fixture = try await ScimFixture.make()
        defer { Task { await fixture.close() } }
        let only = try ScimFixture.json(try await fixture.send(.GET, "/scim/v2/Users/ann?attributes=userName"))
        #expect(Set(only.keys) == ["schemas", "id", "userName"])
        let without = try ScimFixture.json(try await fixture.send(.GET, "/scim/v2/Users/ann?excludedAttributes=name,urn:ietf:params:scim:schemas:core:2.0:User:displayName"))
        #expect(without["name"] == nil && without["displayName"] == nil && without["userName"] as? String == "ann")
        let sub = try ScimFixture.json(try await fixture.send(.GET, "/scim/v2/Users/ann?attributes=name.formatted"))
        #expect((sub["name"] as? [String: Any])?["formatted"] as? String == "Ann Smith")
        let listed = try ScimFixture.json(try await fixture.send(.GET, "/scim/v2/Users?attributes=active"))
        let first = try #require((listed["Resources"] as? [[String: Any]])?.first)
        #expect(Set(first.keys) == ["schemas", "id", "active"])
    }

    @Test func searchTakesItsQueryInTheBody() async throws {
        let fixture = try await ScimFixture.make()
        defer { Task { await fixture.close() } }
        let found = try await fixture.send(.POST, "/scim/v2/Users/.search", #"{"schemas":["urn:ietf:params:scim:api:messages:2.0:SearchRequest"],"filter":"userName eq \"ANN\"","attributes":["userName"],"count":10}"#)
        #expect(found.status == .ok, "\(found.text)")
        let body = try ScimFixture.json(found)
        #expect(body["totalResults"] as? Int == 1)
        #expect(Set(try #require((body["Resources"] as? [[String: Any]])?.first).keys) == ["schemas", "id", "userName"])
        let bad = try await fixture.send(.POST, "/scim/v2/Users/.search", #"{"filter":"title co \"x\""}"#)
        #expect(try ScimFixture.error(bad).scimType == "invalidFilter")
        #expect(try await fixture.send(.POST, "/scim/v2/.search", "{}").status == .notImplemented)
    }

    @Test func externalIdIsKeptFoundAndForgottenWithTheUser() async throws {
        let fixture = try await ScimFixture.make()
        defer { Task { await fixture.close() } }
        let made = try await fixture.send(.POST, "/scim/v2/Users", #"{"userName":"mia","externalId":"00u1ABC"}"#)
        #expect(try ScimFixture.json(made)["externalId"] as? String == "00u1ABC")
        let found = try ScimFixture.json(try await fixture.send(.GET, "/scim/v2/Users?filter=externalId%20eq%20%2200u1ABC%22"))
        #expect(found["totalResults"] as? Int == 1)
        let other = try ScimFixture.json(try await fixture.send(.GET, "/scim/v2/Users?filter=externalId%20eq%20%2200u1abc%22"))
        #expect(other["totalResults"] as? Int == 0)
        let patched = try await fixture.send(.PATCH, "/scim/v2/Users/mia", #"{"Operations":[{"op":"replace","path":"externalId","value":"00u2"}]}"#)
        #expect(try ScimFixture.json(patched)["externalId"] as? String == "00u2")
        #expect(try await fixture.send(.DELETE, "/scim/v2/Users/mia").status == .noContent)
        // A new user of the name inherits none of it.
        let again = try await fixture.send(.POST, "/scim/v2/Users", #"{"userName":"mia"}"#)
        #expect(try ScimFixture.json(again)["externalId"] == nil)
        let group = try await fixture.send(.POST, "/scim/v2/Groups", #"{"displayName":"crew","externalId":"g-1"}"#)
        #expect(try ScimFixture.json(group)["externalId"] as? String == "g-1")
    }

    @Test func aMethodAnEndpointDoesNotTakeIs405() async throws {
        let fixture = try await ScimFixture.make()
        defer { Task { await fixture.close() } }
        for (method, path) in [(HttpMethod.POST, "/scim/v2/ServiceProviderConfig"), (.DELETE, "/scim/v2/Schemas"), (.PUT, "/scim/v2/Users"), (.POST, "/scim/v2/Users/ann")] {
            let refused = try await fixture.send(method, path, "{}")
            #expect(refused.status == .methodNotAllowed, "\(method) \(path)")
            #expect(try ScimFixture.error(refused).status == "405")
        }
        #expect(try fixture.stored("ann") != nil)
    }
}
