import Foundation
import Micro
@testable import MicroAccounts
import MicroTestSupport
import MicroTesting
import Testing

/// `active: false` as the users page's "Disable": everything the user had ends; `active: true`
/// lets them in again while what ended stays ended.
@Suite struct ScimDeactivationTests {
    @Test func activeFalseEndsTheSessionAndTheApiTokenAndRefusesThePasswordThenTrueKeepsThemDead() async throws {
        let fixture = try await ScimFixture.make()
        defer { Task { await fixture.close() } }
        let browser = TestClient(fixture.app)
        try await browser.signIn("user", "secret123")
        let json: HttpHeaders = ["Accept": "application/json"]
        #expect(try await browser.get("/me", headers: json).status == .ok)
        let made = try await browser.post("/account/tokens", form: ["name": "cron", "current_password": "secret123"])
        let range = try #require(made.text.range(of: #"data-token="micro_[A-Za-z0-9_-]+""#, options: .regularExpression))
        let apiToken = String(made.text[range].dropFirst("data-token=\"".count).dropLast())
        let script = TestClient(fixture.app)
        let bearer: HttpHeaders = ["Accept": "application/json", "Authorization": "Bearer " + apiToken]
        #expect(try await script.get("/me", headers: bearer).status == .ok)

        let off = try await fixture.send(.PATCH, "/scim/v2/Users/user", #"{"Operations":[{"op":"Replace","path":"active","value":"False"}]}"#)
        #expect(off.status == .ok, "\(off.text)")
        #expect(try await browser.get("/me", headers: json).status == .unauthorized)
        #expect(try await script.get("/me", headers: bearer).status == .unauthorized)
        let refused = TestClient(fixture.app)
        await #expect(throws: (any Error).self) { try await refused.signIn("user", "secret123") }
        let listed = try ScimFixture.json(try await fixture.send(.GET, "/scim/v2/Users/user"))
        #expect(listed["active"] as? Bool == false)

        let on = try await fixture.send(.PATCH, "/scim/v2/Users/user", #"{"Operations":[{"op":"replace","value":{"active":true}}]}"#)
        #expect(on.status == .ok)
        #expect(try await browser.get("/me", headers: json).status == .unauthorized)
        #expect(try await script.get("/me", headers: bearer).status == .unauthorized)
        let again = TestClient(fixture.app)
        try await again.signIn("user", "secret123")
        #expect(try await again.get("/me", headers: json).status == .ok)

        let events = try await fixture.events(of: "user")
        #expect(events.contains { $0.event == ActivityEvent.Kind.userDisabled && $0.detail == #"by scim "okta""# })
        #expect(events.contains { $0.event == ActivityEvent.Kind.userEnabled && $0.detail == #"by scim "okta""# })
        // The admin sees them on /admin/audit.
        let admin = TestClient(fixture.app)
        try await admin.signIn("ann", "ann-password")
        let audit = try await admin.get("/admin/audit")
        #expect(audit.status == .ok)
        #expect(audit.text.contains("by scim &quot;okta&quot;") || audit.text.contains("by scim &#34;okta&#34;"), "\(audit.text)")
    }

    @Test func theLastAdminIsNotDisabled() async throws {
        let fixture = try await ScimFixture.make(managesAdmins: true)
        defer { Task { await fixture.close() } }
        let refused = try await fixture.send(.PUT, "/scim/v2/Users/ann", #"{"userName":"ann","displayName":"Ann Jones","externalId":"x1","active":false}"#)
        #expect(refused.status == .conflict, "\(refused.text)")
        #expect(try fixture.stored("ann")?.isDisabled == false)
        // Refused as a whole: nothing else of it was written.
        #expect(try fixture.stored("ann")?.user.name == "Ann Smith")
        #expect(try await DatabaseScimStore(fixture.database).externalId(of: "User", "ann") == nil)
    }

    @Test func aUserAddedInactiveIsDisabledFromTheStart() async throws {
        let fixture = try await ScimFixture.make()
        defer { Task { await fixture.close() } }
        let made = try await fixture.send(.POST, "/scim/v2/Users", #"{"userName":"lena","active":"false"}"#)
        #expect(made.status == .created)
        #expect(try fixture.stored("lena")?.isDisabled == true)
        #expect(try ScimFixture.json(made)["active"] as? Bool == false)
        let events = try await fixture.events(of: "lena").map(\.event)
        #expect(events.contains(ActivityEvent.Kind.userAdded) && events.contains(ActivityEvent.Kind.userDisabled))
    }

    @Test func aPutWithoutActiveKeepsADisabledUserDisabled() async throws {
        let fixture = try await ScimFixture.make()
        defer { Task { await fixture.close() } }
        #expect(try await fixture.send(.PATCH, "/scim/v2/Users/user", #"{"Operations":[{"op":"replace","path":"active","value":false}]}"#).status == .ok)
        let put = try await fixture.send(.PUT, "/scim/v2/Users/user", #"{"userName":"user","displayName":"Use R"}"#)
        #expect(put.status == .ok, "\(put.text)")
        #expect(try ScimFixture.json(put)["active"] as? Bool == false)
        #expect(try fixture.stored("user")?.isDisabled == true)
        #expect(try fixture.stored("user")?.user.name == "Use R")
        // Sent, it is obeyed.
        #expect(try await fixture.send(.PUT, "/scim/v2/Users/user", #"{"userName":"user","active":true}"#).status == .ok)
        #expect(try fixture.stored("user")?.isDisabled == false)
        // And an enabled user stays enabled without it.
        #expect(try await fixture.send(.PUT, "/scim/v2/Users/user", #"{"userName":"user","active":null}"#).status == .ok)
        #expect(try fixture.stored("user")?.isDisabled == false)
    }

    @Test func aRetriedActiveFalseEndsWhatAFirstAttemptLeft() async throws {
        let fixture = try await ScimFixture.make()
        defer { Task { await fixture.close() } }
        let browser = TestClient(fixture.app)
        try await browser.signIn("user", "secret123")
        let registry = DatabaseSessionRegistry(fixture.database)
        let now = Int64(fixture.clock.now.timeIntervalSince1970)
        #expect(try await registry.sessions(of: "user", now: now, idle: 1 << 30, lifetime: 1 << 30).count == 1)
        // A first attempt that disabled the user in the store, then failed before ending anything.
        #expect(try await fixture.users.setDisabled(true, username: "user", keepingOne: "admin") == .done)
        let retried = try await fixture.send(.PATCH, "/scim/v2/Users/user", #"{"Operations":[{"op":"replace","path":"active","value":false}]}"#)
        #expect(retried.status == .ok, "\(retried.text)")
        #expect(try await registry.sessions(of: "user", now: now, idle: 1 << 30, lifetime: 1 << 30).isEmpty)
        #expect(try fixture.stored("user")?.isDisabled == true)
    }
}
