import Foundation
import Micro
import MicroTesting
import Testing

/// A browser's walk through a set-up link, as the set-up link and mail tests take it: the admin
/// who makes it, the link opened (its secret to the session, the browser to the form), and the
/// password chosen.
enum SetupLinkWalk {
    /// `ann` (ann-password, admin) signed in, her proof for the users page given.
    static func admin(_ app: App) async throws -> TestClient {
        let ann = TestClient(app)
        try await ann.signIn("ann", "ann-password")
        try await ann.confirmAdmin("ann-password")
        return ann
    }

    /// Opens `link` (absolute) in `client`: the form, or the answer that stopped it.
    static func open(_ client: TestClient, _ link: String) async throws -> TestResponse {
        let url = try #require(URLComponents(string: link))
        let first = try await client.get(url.path + "?" + (url.query ?? ""))
        guard first.status == .seeOther else { return first }
        #expect(first.location == "/password/setup")
        return try await client.get("/password/setup")
    }

    /// Posts `password` (and `again` as its confirmation, else itself) to the link's form.
    static func choose(_ client: TestClient, _ password: String, again: String? = nil) async throws -> TestResponse {
        try await client.post("/password/setup", form: ["new_password": password, "new_password_confirmation": again ?? password])
    }
}
