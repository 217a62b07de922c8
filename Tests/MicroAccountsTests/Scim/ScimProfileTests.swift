import Foundation
import Micro
@testable import MicroAccounts
import MicroTestSupport
import MicroTesting
import Testing

/// What a provider writes of a user beside the users table (`name`'s parts, every address,
/// `displayName` as given) is read back as written, while the table keeps what pages and mail
/// use, and a change made on the users page wins over it.
@Suite struct ScimProfileTests {
    private func add(_ fixture: ScimFixture, _ body: String) async throws -> [String: Any] {
        let made = try await fixture.send(.POST, "/scim/v2/Users", body)
        #expect(made.status == .created, "\(made.text)")
        return try ScimFixture.json(made)
    }

    private func patch(_ fixture: ScimFixture, _ name: String, _ operations: String) async throws -> [String: Any] {
        let answer = try await fixture.send(.PATCH, "/scim/v2/Users/\(name)", #"{"Operations":\#(operations)}"#)
        #expect(answer.status == .ok, "\(answer.text)")
        return try ScimFixture.json(answer)
    }

    private static func emails(_ body: [String: Any]) -> [[String: Any]] { body["emails"] as? [[String: Any]] ?? [] }

    @Test func nameHasItsPartsAndEveryAddressItsTypeAndFlag() async throws {
        let fixture = try await ScimFixture.make()
        defer { Task { await fixture.close() } }
        let body = try await add(fixture, """
            {"userName":"ada","name":{"givenName":"Ada","middleName":"King","familyName":"Lovelace","honorificPrefix":"Countess"},
             "emails":[{"value":"ada@home.example","type":"home","primary":false},{"value":"ada@work.example","type":"work","display":"Work"}]}
            """)
        let name = try #require(body["name"] as? [String: Any])
        #expect(name["givenName"] as? String == "Ada")
        #expect(name["middleName"] as? String == "King")
        #expect(name["honorificPrefix"] as? String == "Countess")
        #expect(name["formatted"] == nil)
        #expect(body["displayName"] == nil)
        let emails = Self.emails(body)
        #expect(emails.map { $0["value"] as? String } == ["ada@home.example", "ada@work.example"])
        #expect(emails.map { $0["primary"] as? Bool } == [false, false])
        #expect(emails.map { $0["type"] as? String } == ["home", "work"])
        #expect(emails[1]["display"] as? String == "Work")
        // The table: the name the parts make, and the first address, none being primary.
        let stored = try #require(try fixture.stored("ada"))
        #expect(stored.user.name == "Ada King Lovelace")
        #expect(stored.user.email == "ada@home.example")
        let read = try ScimFixture.json(try await fixture.send(.GET, "/scim/v2/Users/ada"))
        #expect(Self.emails(read).count == 2)
        #expect((read["name"] as? [String: Any])?["familyName"] as? String == "Lovelace")
    }

    @Test func partsAndAddressesChangeOneByOneAndOnlyOneIsPrimary() async throws {
        let fixture = try await ScimFixture.make()
        defer { Task { await fixture.close() } }
        _ = try await add(fixture, #"{"userName":"ada","displayName":"Ada","emails":[{"value":"ada@work.example","type":"work","primary":true}]}"#)
        var body = try await patch(fixture, "ada", #"""
            [{"op":"replace","path":"name.familyName","value":"Lovelace"},
             {"op":"add","path":"emails","value":[{"value":"ada@home.example","type":"home","primary":true}]},
             {"op":"replace","path":"emails[type eq \"work\"].display","value":"Office"}]
            """#)
        #expect((body["name"] as? [String: Any])?["familyName"] as? String == "Lovelace")
        var emails = Self.emails(body)
        #expect(emails.map { $0["value"] as? String } == ["ada@work.example", "ada@home.example"])
        // The latest primary wins: the RFC allows one.
        #expect(emails.map { $0["primary"] as? Bool } == [false, true])
        #expect(emails[0]["display"] as? String == "Office")
        #expect(try fixture.stored("ada")?.user.email == "ada@home.example")
        // The displayName still wins over the name's parts for pages.
        #expect(try fixture.stored("ada")?.user.name == "Ada")

        body = try await patch(fixture, "ada", #"[{"op":"remove","path":"emails[type eq \"home\"]"},{"op":"remove","path":"displayName"}]"#)
        emails = Self.emails(body)
        #expect(emails.map { $0["value"] as? String } == ["ada@work.example"])
        #expect(body["displayName"] == nil)
        #expect(try fixture.stored("ada")?.user.email == "ada@work.example")
        #expect(try fixture.stored("ada")?.user.name == "Lovelace")

        body = try await patch(fixture, "ada", #"[{"op":"remove","path":"name"}]"#)
        #expect(body["name"] == nil)
        #expect(try fixture.stored("ada")?.user.name == "Ada")
        let missing = try await fixture.send(.PATCH, "/scim/v2/Users/ada", #"{"Operations":[{"op":"remove","path":"emails[type eq \"home\"]"}]}"#)
        #expect(missing.status == .badRequest)
        #expect(try ScimFixture.error(missing).scimType == "noTarget")
    }

    @Test func entrasWorkAddressIsMadeWhenThereIsNone() async throws {
        let fixture = try await ScimFixture.make()
        defer { Task { await fixture.close() } }
        _ = try await add(fixture, #"{"userName":"bo"}"#)
        let body = try await patch(fixture, "bo", #"[{"op":"Replace","path":"emails[type eq \"work\"].value","value":"bo@work.example"}]"#)
        #expect(Self.emails(body).map { $0["primary"] as? Bool } == [true])
        #expect(try fixture.stored("bo")?.user.email == "bo@work.example")
    }

    @Test func aChangeOnTheUsersPageWinsOverWhatScimKept() async throws {
        let fixture = try await ScimFixture.make()
        defer { Task { await fixture.close() } }
        _ = try await add(fixture, """
            {"userName":"cy","name":{"givenName":"Cy","familyName":"Young"},"emails":[{"value":"cy@a.example","type":"home"},{"value":"cy@b.example"}]}
            """)
        #expect(try await fixture.users.setName(of: "cy", to: "Cyrus"))
        #expect(try await fixture.users.setEmail(of: "cy", to: "cyrus@c.example") == .done)
        let read = try ScimFixture.json(try await fixture.send(.GET, "/scim/v2/Users/cy"))
        #expect(read["displayName"] as? String == "Cyrus")
        #expect((read["name"] as? [String: Any])?["formatted"] as? String == "Cyrus")
        #expect((read["name"] as? [String: Any])?["givenName"] == nil)
        #expect(Self.emails(read).map { $0["value"] as? String } == ["cyrus@c.example"])
        #expect(Self.emails(read).map { $0["primary"] as? Bool } == [true])
    }

    @Test func whatCannotBeKeptIsRefusedAndChangesNothing() async throws {
        let fixture = try await ScimFixture.make()
        defer { Task { await fixture.close() } }
        _ = try await add(fixture, #"{"userName":"di","displayName":"Di","emails":[{"value":"di@example.com","primary":true}]}"#)
        let seventeen = (0..<17).map { #"{"value":"di\#($0)@example.com"}"# }.joined(separator: ",")
        for operations in [
            #"[{"op":"add","path":"emails","value":[\#(seventeen)]}]"#,
            #"[{"op":"replace","path":"name.givenName","value":"Di\#u{202E}evil"}]"#,
            #"[{"op":"replace","path":"name","value":{"familyName":"D\#u{200B}i"}}]"#,
            #"[{"op":"replace","path":"emails[type eq \"work\"].type","value":"\#(String(repeating: "w", count: 65))"}]"#,
            #"[{"op":"replace","path":"emails[type eq \"work\"].primary","value":true}]"#,
            #"[{"op":"replace","path":"emails[type eq","value":"x@example.com"}]"#,
            #"[{"op":"replace","path":"emails[nickName eq \"x\"].value","value":"x@example.com"}]"#,
            #"[{"op":"replace","path":"name.givenName","value":7}]"#,
        ] {
            let answer = try await fixture.send(.PATCH, "/scim/v2/Users/di", #"{"Operations":\#(operations)}"#)
            #expect(answer.status == .badRequest, "\(operations): \(answer.text)")
        }
        let read = try ScimFixture.json(try await fixture.send(.GET, "/scim/v2/Users/di"))
        #expect(read["displayName"] as? String == "Di")
        #expect(Self.emails(read).map { $0["value"] as? String } == ["di@example.com"])
        #expect(try fixture.stored("di")?.user.name == "Di")
    }

    @Test func aRemovedUsersProfileIsNotANewHoldersOf() async throws {
        let fixture = try await ScimFixture.make()
        defer { Task { await fixture.close() } }
        _ = try await add(fixture, #"{"userName":"ed","name":{"givenName":"Ed","familyName":"Old"},"emails":[{"value":"ed@old.example","type":"home"}]}"#)
        #expect(try await fixture.send(.DELETE, "/scim/v2/Users/ed").status == .noContent)
        let body = try await add(fixture, #"{"userName":"ed"}"#)
        #expect(body["name"] == nil)
        #expect(body["emails"] == nil)
        #expect(body["displayName"] == nil)
    }
}
