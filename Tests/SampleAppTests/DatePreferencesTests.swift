import Foundation
import Micro
import MicroTesting
import Testing
@testable import SampleApp

/// The date tool's remembered format and zone: only the app's own pages change them (a link on
/// another site does not), and a zone with a control character is an error, never saved.
@Suite struct DatePreferencesTests {
    private let json: HttpHeaders = ["Accept": "application/json"]

    private func signedInClient() async throws -> TestClient {
        let client = try sampleClient()
        let response = try await client.post("/signin", form: ["username": "user", "password": "secret123"])
        #expect(response.location == "/")
        return client
    }

    /// The zone and format the tool shows when none is given.
    private func remembered(_ client: TestClient) async throws -> (zone: String?, format: String?) {
        let page = try await client.get("/tools/date-conversion")
        func value(_ id: String) -> String? {
            guard let range = page.text.range(of: #"id="\#(id)"[^>]*value="([^"]*)""#, options: .regularExpression) else { return nil }
            return page.text[range].components(separatedBy: #"value=""#).last.map { String($0.dropLast()) }
        }
        return (value("zone"), value("format"))
    }

    @Test func aCrossSiteLinkDoesNotChangeThePreferences() async throws {
        let client = try await signedInClient()
        _ = try await client.get("/tools/date-conversion?millis=0&zone=Europe/Paris&format=rfc1123")
        #expect(try await remembered(client) == ("Europe/Paris", "rfc1123"))

        // A link on another site: the answer uses what it asks for, and remembers none of it.
        let crossSite = try await client.get(
            "/tools/date-conversion?millis=0&zone=Asia/Tokyo&format=iso8601", headers: ["Sec-Fetch-Site": "cross-site"])
        #expect(crossSite.status == .ok)
        #expect(crossSite.text.contains("1970-01-01T09:00:00.000+09:00"))
        #expect(try await remembered(client) == ("Europe/Paris", "rfc1123"))
        let crossSiteJson = try await client.get(
            "/tools/date-conversion?millis=0&zone=Asia/Tokyo&format=iso8601", headers: ["Sec-Fetch-Site": "Cross-Site", "Accept": "application/json"])
        #expect(crossSiteJson.status == .ok)
        #expect(try await remembered(client) == ("Europe/Paris", "rfc1123"))

        // The app's own form, a bookmark or a browser without the header do.
        for (site, zone) in [("same-origin", "Asia/Tokyo"), ("none", "America/Chicago"), (nil, "UTC")] {
            let headers: HttpHeaders = site.map { ["Sec-Fetch-Site": $0] } ?? [:]
            _ = try await client.get("/tools/date-conversion?millis=0&zone=\(zone)", headers: headers)
            #expect(try await remembered(client).zone == zone, "Sec-Fetch-Site: \(site ?? "absent")")
        }
    }

    @Test(arguments: ["UTC%00", "Europe/Paris%00evil", "%01UTC", "UTC%0A", "%09UTC", "Europe%7FParis", "UTC%C2%85", "UTC%C2%9F", "Europe/Paris%1B%5B31m"])
    func aControlCharacterInTheZoneIsAnErrorNotSaved(_ zone: String) async throws {
        let client = try await signedInClient()
        _ = try await client.get("/tools/date-conversion?millis=0&zone=Europe/Paris")

        let page = try await client.get("/tools/date-conversion?millis=0&zone=\(zone)")
        #expect(page.status == .unprocessableEntity)
        #expect(page.text.contains(#"id="zone-error""#))
        #expect(page.text.contains("control character"))
        let answer = try await client.get("/tools/date-conversion?millis=0&zone=\(zone)", headers: json)
        #expect(answer.status == .unprocessableEntity)
        let error = try answer.decode([String: String].self)
        #expect(error["field"] == "zone")
        #expect(error["error"]?.contains("control character") == true)

        #expect(try await remembered(client).zone == "Europe/Paris")
    }

    @Test func theZoneLookUpRefusesControlCharactersBeforeTheCLibrarySeesThem() {
        for name in ["UTC\u{0}", "UTC\u{0}Europe/Paris", "Europe/Paris\n", "\u{7F}UTC", "UTC\u{9F}"] {
            #expect(throws: ToolError.self) { try DateConversion.zone(named: name) }
            do throws(ToolError) {
                _ = try DateConversion.zone(named: name)
            } catch {
                #expect(error.field == "zone")
                #expect(error.message.hasPrefix("A time zone name has no control characters; this one has U+00"))
            }
        }
        #expect(throws: Never.self) { try DateConversion.zone(named: " Europe/Paris ") }
        #expect(!DateConversion.hasControlCharacter("Europe/Paris \u{A0}"))
    }
}
