import Foundation
import Logging
import Micro
@testable import MicroAccounts
import MicroTestSupport
import MicroTesting
import Testing

/// What a client can send wrong: every refusal a SCIM error of 4xx that changes nothing.
@Suite struct ScimBadInputTests {
    @Test func malformedJsonIsInvalidSyntaxAndAWrongContentTypeIs415() async throws {
        let fixture = try await ScimFixture.make()
        defer { Task { await fixture.close() } }
        for body in [#"{"userName":"#, "[]", #""just text""#, "\u{FEFF}{", String(repeating: "[", count: 5000)] {
            let refused = try await fixture.send(.POST, "/scim/v2/Users", body)
            #expect(refused.status == .badRequest, "\(body.prefix(20)): \(refused.text)")
            #expect(try ScimFixture.error(refused).scimType == "invalidSyntax", "\(body.prefix(20))")
        }
        for type in ["text/plain", "application/x-www-form-urlencoded", "application/xml"] {
            let refused = try await fixture.send(.POST, "/scim/v2/Users", #"{"userName":"ivan"}"#, type: type)
            #expect(refused.status == .unsupportedMediaType, "\(type): \(refused.text)")
            #expect(try ScimFixture.error(refused).status == "415")
        }
        #expect(try await fixture.send(.POST, "/scim/v2/Users", #"{"userName":"ivan"}"#, type: "application/json; charset=utf-8").status == .created)
        #expect(try fixture.stored("ivan") != nil)
    }

    @Test func anOversizedBodyIs413() async throws {
        let fixture = try await ScimFixture.make()
        defer { Task { await fixture.close() } }
        let padding = String(repeating: "a", count: 70 * 1024)
        let refused = try await fixture.send(.POST, "/scim/v2/Users", #"{"userName":"judy","title":"\#(padding)"}"#)
        #expect(refused.status == .payloadTooLarge)
        #expect(try ScimFixture.error(refused).status == "413")
        #expect(try fixture.stored("judy") == nil)
    }

    @Test func filtersOutsideWhatIsSupportedAreInvalidFilter() async throws {
        let fixture = try await ScimFixture.make()
        defer { Task { await fixture.close() } }
        let filters = [
            #"userName sw "a""#, #"userName eq "a" or userName eq "b""#, #"displayName eq "Ann Smith""#, #"title eq "x""#,
            #"userName eq "unterminated"#, "userName eq", #"(userName eq "a")"#, #"userName eq "a" and "#,
            #"userName eq "a" and userName eq "a" and userName eq "a" and userName eq "a" and userName eq "a""#,
            "userName eq \"" + String(repeating: "x", count: 2000) + "\"", #"userName pr"#, #"emails[type eq "work"].value eq "x""#,
            // Values no stored one can equal, refused before a store sees them (PostgreSQL refuses a NUL).
            #"externalId eq "\u0000""#, #"externalId eq "a\u0000b""#, #"externalId eq """#,
            "externalId eq \"" + String(repeating: "x", count: 257) + "\"", #"userName eq "a\u0000""#, #"emails.value eq "a\u0000@example.com""#,
        ]
        for filter in filters {
            let encoded = filter.addingPercentEncoding(withAllowedCharacters: .alphanumerics) ?? ""
            let refused = try await fixture.send(.GET, "/scim/v2/Users?filter=" + encoded)
            #expect(refused.status == .badRequest, "\(filter.prefix(60)): \(refused.text)")
            #expect(try ScimFixture.error(refused).scimType == "invalidFilter", "\(filter.prefix(60))")
        }
        // A supported attribute checked beside an indexed one is fine.
        let both = try await fixture.send(.GET, "/scim/v2/Users?filter=" + (#"userName eq "ann" and displayName eq "Ann Smith""#.addingPercentEncoding(withAllowedCharacters: .alphanumerics) ?? ""))
        #expect(try ScimFixture.json(both)["totalResults"] as? Int == 1)
    }

    @Test func hostileValuesReachTheLogEscaped() async throws {
        let recorder = LogRecorder()
        let fixture = try await ScimFixture.make(logger: recorder.logger)
        defer { Task { await fixture.close() } }
        let made = try await fixture.send(.POST, "/scim/v2/Users", #"{"userName":"kim","displayName":"Kim"}"#)
        #expect(made.status == .created)
        let refused = try await fixture.send(.PATCH, "/scim/v2/Users/kim", #"{"Operations":[{"op":"replace","path":"displayName","value":"Kim\u001b[2J\nforged line"}]}"#)
        #expect(refused.status == .badRequest)
        let filtered = try await fixture.send(.GET, "/scim/v2/Users?filter=" + ("userName eq \"a\u{1B}[2J\nforged\"".addingPercentEncoding(withAllowedCharacters: .alphanumerics) ?? ""))
        #expect(filtered.status == .badRequest)
        let lines = [Logger.Level.trace, .debug, .info, .notice, .warning, .error].flatMap { recorder.lines(at: $0) }
        #expect(lines.contains { $0.contains("user_added") })
        for line in lines { #expect(!line.contains("\u{1B}") && !line.contains("\nforged"), "\(line)") }
    }
}
