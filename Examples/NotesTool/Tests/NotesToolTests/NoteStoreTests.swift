import Foundation
import Micro
import MicroTesting
import Testing
@testable import NotesToolApp

@Suite struct NoteStoreTests {
    @Test func notesOutliveARestart() async throws {
        let file = try temporaryFile()
        let before = try await notesClient(try await notesApp(file: file), signedInAs: "oncall")
        let saved = try await before.post("/notes", form: ["title": "Disk full on db-2", "severity": "2"])
        #expect(saved.location == "/notes/1")

        // Another instance over the same file, as after a restart.
        let after = try await notesClient(try await notesApp(file: file), signedInAs: "oncall")
        #expect(try await after.get("/notes/1").text.contains("<h1>Disk full on db-2</h1>"))
        #expect(try await after.post("/notes", form: ["title": "Second", "severity": "3"]).location == "/notes/2")
    }

    @Test func theFileIsItsOwnersOnly() async throws {
        let file = try temporaryFile()
        _ = try await notesClient(try await notesApp(file: file)).get("/healthz")
        let mode = try #require(try FileManager.default.attributesOfItem(atPath: file)[.posixPermissions] as? Int)
        #expect(mode == 0o600)
    }

    @Test func anIdThatIsNotANumberIsNotFound() async throws {
        let client = try await notesClient(signedInAs: "oncall")
        _ = try await client.post("/notes", form: ["title": "one", "severity": "3"])
        #expect(try await client.get("/notes/1").status == .ok)
        #expect(try await client.get("/notes/01").status == .notFound)
        #expect(try await client.get("/notes/x").status == .notFound)
        #expect(try await client.get("/notes/99999999999999999999").status == .notFound)
    }
}
