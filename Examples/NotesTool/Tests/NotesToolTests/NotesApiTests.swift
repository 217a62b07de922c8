import Foundation
import Micro
import MicroTesting
@testable import NotesToolApp
import Testing

/// The JSON API scripts use, with HTTP Basic credentials.
@Suite struct NotesApiTests {
    private struct Draft: Encodable {
        var title: String
        var severity: Int
        var body: String?
    }

    @Test func withoutCredentialsTheApiAnswers401InJson() async throws {
        let client = try await notesClient()
        let refused = try await client.get("/api/notes")
        #expect(refused.status == .unauthorized)
        #expect(refused.headers.first(name: "WWW-Authenticate")?.hasPrefix("Basic ") == true)
        #expect(refused.contentType == "application/json")
        #expect(refused.text.contains(#""error":"Sign in first"#))
        let wrong = try await client.get("/api/notes", headers: ["Authorization": "Basic " + Data("oncall:guess".utf8).base64EncodedString()])
        #expect(wrong.status == .unauthorized)
    }

    @Test func aScriptListsAndWritesNotesWithBasicCredentials() async throws {
        let client = try await notesClient()
        client.sendsCsrfToken = false  // a script has no session to take one from
        #expect(try await client.get("/api/notes", headers: basic("oncall")).text == "[]")
        let created = try await client.post("/api/notes", json: Draft(title: "Deploy rolled back", severity: 3), headers: basic("oncall"))
        #expect(created.status == .created)
        #expect(created.text.contains(/"created":"\d{4}-\d\d-\d\dT\d\d:\d\d:\d\dZ"/))
        let note = try created.decode(Note.self)
        #expect(note.id == 1 && note.title == "Deploy rolled back" && note.body == "" && note.author == "oncall")
        let listed = try await client.get("/api/notes", headers: basic("oncall"))
        #expect(try listed.decode([Note].self).map(\.title) == ["Deploy rolled back"])
        #expect(client.cookies.isEmpty)
    }

    @Test func anInvalidNoteIs422WithItsFields() async throws {
        let client = try await notesClient()
        let draft = Draft(title: " ", severity: 0, body: String(repeating: "x", count: 5_001))
        let refused = try await client.post("/api/notes", json: draft, headers: basic("oncall"))
        #expect(refused.status == .unprocessableEntity)
        struct Failure: Decodable { let error: String, fields: [String: String] }
        let failure = try refused.decode(Failure.self)
        #expect(failure.fields == [
            "title": "This field is required.", "severity": "Must be from 1 to 5.", "body": "Must be at most 5000 characters.",
        ])
        // JSON with bytes that are not UTF-8 in a string.
        var headers = basic("oncall")
        headers.add(name: "Content-Type", value: "application/json")
        let invalid = Array(#"{"title":""#.utf8) + [0xFF, 0xFE] + Array(#"","severity":1}"#.utf8)
        let broken = try await client.request(.POST, "/api/notes", headers: headers, body: invalid)
        #expect(broken.status == .badRequest && broken.contentType == "application/json")
        #expect(try await client.get("/api/notes", headers: basic("oncall")).text == "[]")
    }
}
