import Foundation
import Micro
import MicroTesting
import Testing
import SampleApp

/// The admin-only users page, and the tools used from scripts with HTTP Basic credentials.
@Suite struct AdminAndScriptTests {
    private let basic: HttpHeaders = [
        "Authorization": "Basic " + Data("user:secret123".utf8).base64EncodedString(), "Accept": "application/json",
    ]

    @Test func theAdminSeesTheUsersWithoutAHash() async throws {
        let client = try sampleClient()
        #expect(try await client.get("/admin/users").location == "/signin")
        #expect(try await client.post("/signin", form: ["username": "user", "password": "secret123"]).location == "/admin/users")
        let page = try await client.get("/admin/users")
        #expect(page.status == .ok)
        #expect(page.text.contains("<td>user</td><td>User</td><td>admin</td>"))
        #expect(!page.text.contains("$2a$"))
        let home = try await client.get("/")
        #expect(home.text.contains(#"<a href="/admin/users">Users</a>"#))
    }

    @Test func aUserWithoutTheAdminRoleGetsA403() async throws {
        let folder = FileManager.default.temporaryDirectory.appendingPathComponent("micro-admin-\(UUID().uuidString).yml")
        defer { try? FileManager.default.removeItem(at: folder) }
        try """
            users:
              - username: bob
                password_hash: \(try Password.hash("pw", cost: 4))
            """.write(to: folder, atomically: true, encoding: .utf8)
        let client = TestClient(try sampleApp(credentials: folder.path))
        #expect(try await client.post("/signin", form: ["username": "bob", "password": "pw"]).location == "/")
        let refused = try await client.get("/admin/users")
        #expect(refused.status == .forbidden)
        #expect(refused.text.contains("needs the role"))
        #expect(!(try await client.get("/").text.contains("/admin/users")))
    }

    @Test func scriptsUseTheToolsAndTheUsersListWithBasicCredentials() async throws {
        let client = try sampleClient()
        let refused = try await client.get("/tools/data-encoding?op=base64-encode&input=foobar", headers: ["Accept": "application/json"])
        #expect(refused.status == .unauthorized)
        #expect(refused.headers.first(name: "WWW-Authenticate")?.hasPrefix("Basic ") == true)

        let encoded = try await client.get("/tools/data-encoding?op=base64-encode&input=foobar", headers: basic)
        #expect(encoded.status == .ok && encoded.text == #"{"result":"Zm9vYmFy"}"#)
        client.sendsCsrfToken = false
        let hashed = try await client.post("/tools/data-encryption", form: ["op": "sha256", "input": "abc"], headers: basic)
        #expect(hashed.status == .ok && hashed.text.contains("ba7816bf"))
        let users = try await client.get("/admin/users", headers: basic)
        struct Listed: Decodable, Equatable { let username: String, name: String, roles: [String] }
        #expect(try users.decode([Listed].self) == [Listed(username: "user", name: "User", roles: ["admin"])])
        #expect(!users.text.contains("$2a$"))
        #expect(client.cookies.isEmpty)
    }
}
