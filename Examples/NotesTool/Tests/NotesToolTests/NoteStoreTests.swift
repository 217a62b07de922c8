import Foundation
import Micro
import MicroPostgres
import MicroTesting
import Testing
@testable import NotesToolApp

@Suite(.timeLimit(.minutes(3))) struct NoteStoreTests {
    @Test func notesOutliveARestartAndTheFileIsItsOwnersOnly() async throws {
        let folder = FileManager.default.temporaryDirectory.appendingPathComponent("notes-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: folder, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(at: folder) }
        let file = folder.appendingPathComponent("notes.db").path
        let settings = notesSettings()
        // SQLite whatever the run: a restart is the same file opened again.
        let before = try await AppStores.open(file: file, environment: [:])
        let users = try #require(before.users as? any UserTableStore)
        _ = try await users.addUser(username: "oncall", name: nil, roles: [], passwordHash: try Password.hash("oncall-secret", cost: 4))
        let first = TestClient(makeApp(App(settings: settings), stores: before))
        try await first.signIn("oncall")
        #expect(try await first.post("/notes", form: ["title": "Disk full on db-2", "severity": "2"]).location == "/notes/1")
        await before.shutdown()

        let after = try await AppStores.open(file: file, environment: [:])
        let second = TestClient(makeApp(App(settings: settings), stores: after))
        try await second.signIn("oncall")
        #expect(try await second.get("/notes/1").text.contains("<h1>Disk full on db-2</h1>"))
        #expect(try await second.post("/notes", form: ["title": "Second", "severity": "3"]).location == "/notes/2")
        await after.shutdown()
        let mode = try #require(try FileManager.default.attributesOfItem(atPath: file)[.posixPermissions] as? Int)
        #expect(mode == 0o600)
    }

    @Test func anIdThatIsNotANumberIsNotFound() async throws {
        try await withNotesTool { app, _ in
            let client = TestClient(app)
            try await client.signIn("oncall")
            _ = try await client.post("/notes", form: ["title": "one", "severity": "3"])
            #expect(try await client.get("/notes/1").status == .ok)
            #expect(try await client.get("/notes/01").status == .notFound)
            #expect(try await client.get("/notes/x").status == .notFound)
            #expect(try await client.get("/notes/99999999999999999999").status == .notFound)
        }
    }
}
