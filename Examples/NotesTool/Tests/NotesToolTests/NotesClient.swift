import Foundation
import Micro
import MicroTesting
@testable import NotesToolApp
import Testing

/// A notes tool with the example's users, its notes in the SQLite file `file` (a new, empty
/// one in a folder of its own when not given).
func notesApp(file: String? = nil) async throws -> App {
    var settings = Settings()
    settings.environment = .test
    settings.accessLog = false
    let database = try await Database.sqlite(path: file ?? temporaryFile())
    return makeApp(App(settings: settings), users: try YamlUserStore(file: "credentials.yml"), database: database)
}

/// `notes.db` in a new temporary folder.
func temporaryFile() throws -> String {
    let folder = FileManager.default.temporaryDirectory.appendingPathComponent("notes-\(UUID().uuidString)")
    try FileManager.default.createDirectory(at: folder, withIntermediateDirectories: true)
    return folder.appendingPathComponent("notes.db").path
}

/// A client of `app` (a fresh one when not given), signed in as `username` when given.
func notesClient(_ app: App? = nil, signedInAs username: String? = nil) async throws -> TestClient {
    let client = if let app { TestClient(app) } else { TestClient(try await notesApp()) }
    if let username { try await client.signIn(username) }
    return client
}

/// The passwords of credentials.yml.
let passwords = ["lead": "lead-secret", "oncall": "oncall-secret"]

/// What a script sends: the user's name and password with HTTP Basic authentication.
func basic(_ username: String) -> HttpHeaders {
    ["Authorization": "Basic " + Data("\(username):\(passwords[username]!)".utf8).base64EncodedString()]
}

extension TestClient {
    func signIn(_ username: String) async throws {
        let answer = try await post("/signin", form: ["username": username, "password": passwords[username]!])
        try #require(answer.status == .seeOther, "signing in as \(username)")
    }
}
