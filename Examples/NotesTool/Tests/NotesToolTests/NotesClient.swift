import Foundation
import Micro
import MicroTesting
@testable import NotesToolApp
import Testing

/// A fresh notes tool (no notes yet) with the example's users.
func notesApp() throws -> App {
    var settings = Settings()
    settings.environment = .test
    settings.accessLog = false
    return makeApp(App(settings: settings), users: try YamlUserStore(file: "credentials.yml"))
}

/// A client of `app` (a fresh one when not given), signed in as `username` when given.
func notesClient(_ app: App? = nil, signedInAs username: String? = nil) async throws -> TestClient {
    let client = TestClient(try app ?? notesApp())
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
