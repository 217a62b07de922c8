import Foundation
import Micro
import MicroTesting
@testable import NotesToolApp
import Testing

/// The JSON API scripts use, with an API token made on the account pages.
@Suite(.timeLimit(.minutes(3))) struct NotesApiTests {
    private struct Draft: Encodable {
        var title: String
        var severity: Int
        var body: String?
    }

    /// A script's client and the token oncall made for it: read and write, or read-only.
    private func script(_ app: App, scopes: [String] = ["write"]) async throws -> (TestClient, HttpHeaders) {
        let owner = TestClient(app)
        try await owner.signIn("oncall")
        let token = try await owner.makeApiToken(name: "pager bot", scopes: scopes, password: passwords["oncall"]!)
        let client = TestClient(app)
        client.sendsCsrfToken = false  // a script has no session to take one from
        return (client, ["Authorization": "Bearer \(token)"])
    }

    @Test func withoutATokenTheApiAnswers401InJsonNamingBearerOnly() async throws {
        try await withNotesTool { app, _ in
            let client = TestClient(app)
            let refused = try await client.get("/api/notes")
            #expect(refused.status == .unauthorized)
            #expect(refused.headers.first(name: "WWW-Authenticate")?.hasPrefix("Bearer ") == true)
            #expect(refused.contentType == "application/json")
            // A password is no way in for a script: it would skip the admins' second factor.
            let basic = "Basic " + Data("oncall:oncall-secret".utf8).base64EncodedString()
            #expect(try await client.get("/api/notes", headers: ["Authorization": basic]).status == .unauthorized)
            #expect(try await client.get("/api/notes", headers: ["Authorization": "Bearer micro_guess"]).status == .unauthorized)
        }
    }

    @Test func aScriptListsAndWritesNotesWithItsToken() async throws {
        try await withNotesTool { app, _ in
            let (client, token) = try await script(app)
            #expect(try await client.get("/api/notes", headers: token).text == "[]")
            let created = try await client.post("/api/notes", json: Draft(title: "Deploy rolled back", severity: 3), headers: token)
            #expect(created.status == .created)
            // Times are whole seconds in the table, ISO 8601 in JSON.
            #expect(created.text.contains(/"created":"\d{4}-\d\d-\d\dT\d\d:\d\d:\d\dZ"/))
            let note = try created.decode(Note.self)
            #expect(note.id == 1 && note.title == "Deploy rolled back" && note.body == "" && note.author == "oncall")
            let listed = try await client.get("/api/notes", headers: token)
            #expect(try listed.decode([Note].self).map(\.title) == ["Deploy rolled back"])
            #expect(listed.headers.first(name: "Link") == nil)
            #expect(client.cookies.isEmpty)
        }
    }

    @Test func aReadOnlyTokenListsNotesButWritesNone() async throws {
        try await withNotesTool { app, _ in
            let (client, token) = try await script(app, scopes: [])
            #expect(try await client.get("/api/notes", headers: token).text == "[]")
            let refused = try await client.post("/api/notes", json: Draft(title: "Deploy rolled back", severity: 3), headers: token)
            #expect(refused.status == .forbidden && refused.text.contains("'write'"))
            #expect(try await client.get("/api/notes", headers: token).text == "[]")
        }
    }

    @Test func aLongListComesAPageAtATimeWithTheNextInItsLinkHeader() async throws {
        try await withNotesTool { app, _ in
            let (client, token) = try await script(app)
            for number in 1...105 {
                _ = try await client.post("/api/notes", json: Draft(title: "note \(number)", severity: number % 2 == 0 ? 2 : 4), headers: token)
            }
            let first = try await client.get("/api/notes", headers: token)
            #expect(try first.decode([Note].self).count == 100)
            let link = try #require(first.headers.first(name: "Link"))
            #expect(link == #"</api/notes?after=6>; rel="next""#)
            let next = try await client.get(String(link.dropFirst().prefix { $0 != ">" }), headers: token)
            #expect(try next.decode([Note].self).map(\.id) == [5, 4, 3, 2, 1])
            // A filter, and a cursor that is no note's id.
            #expect(try await client.get("/api/notes?severity=2", headers: token).decode([Note].self).allSatisfy { $0.severity == 2 })
            #expect(try await client.get("/api/notes?after=x", headers: token).status == .badRequest)
        }
    }

    @Test func anInvalidNoteIs422WithItsFields() async throws {
        try await withNotesTool { app, _ in
            let (client, token) = try await script(app)
            let draft = Draft(title: " ", severity: 0, body: String(repeating: "x", count: 5_001))
            let refused = try await client.post("/api/notes", json: draft, headers: token)
            #expect(refused.status == .unprocessableEntity)
            struct Failure: Decodable { let error: String, fields: [String: String] }
            let failure = try refused.decode(Failure.self)
            #expect(failure.fields == [
                "title": "This field is required.", "severity": "Must be from 1 to 5.", "body": "Must be at most 5000 characters.",
            ])
            // JSON with bytes that are not UTF-8 in a string.
            var headers = token
            headers.add(name: "Content-Type", value: "application/json")
            let invalid = Array(#"{"title":""#.utf8) + [0xFF, 0xFE] + Array(#"","severity":1}"#.utf8)
            let broken = try await client.request(.POST, "/api/notes", headers: headers, body: invalid)
            #expect(broken.status == .badRequest && broken.contentType == "application/json")
            #expect(try await client.get("/api/notes", headers: token).text == "[]")
        }
    }
}
