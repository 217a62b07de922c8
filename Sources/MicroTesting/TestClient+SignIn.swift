import MicroAuth
import MicroCore

extension TestClient {
    /// Signs in through the app's sign-in form (`POST /signin`, or `path`), as a person would:
    /// the session cookie is kept for the requests that follow. Throws when the app does not
    /// sign the user in (a wrong password, a throttled name), with the answer's status.
    ///
    /// ```swift
    /// let client = TestClient(app)
    /// try await client.signIn("ann", "correct horse")
    /// #expect(try await client.get("/notes").status == .ok)
    /// ```
    @discardableResult
    public func signIn(_ username: String, _ password: String, path: String = "/signin") async throws -> TestResponse {
        let answer = try await post(path, form: ["username": username, "password": password])
        // The flow answers a refusal with a redirect back to the form (or a 429, a 503).
        guard answer.status == .seeOther, let location = answer.location, location != path, !location.hasSuffix(path) else {
            throw TestClientError("\(username) was not signed in: \(answer.status.code) \(answer.location.map { "to \($0)" } ?? answer.text)")
        }
        return answer
    }

    /// Confirms the signed-in admin on the users page (`POST /admin/users/confirm`, or
    /// `path`) with their `password` (and `code`, where their second factor is on): the
    /// page's changes that follow need no password for a few minutes. Throws when the app
    /// refuses it.
    ///
    /// ```swift
    /// try await client.signIn("ann", "correct horse")
    /// try await client.confirmAdmin("correct horse")
    /// #expect(try await client.post("/admin/users/disable", form: ["username": "bob"]).status == .seeOther)
    /// ```
    @discardableResult
    public func confirmAdmin(_ password: String, code: String? = nil, path: String = "/admin/users/confirm") async throws -> TestResponse {
        let answer: TestResponse
        if let code {
            answer = try await post(path, form: ["current_password": password, "code": code])
        } else {
            answer = try await post(path, form: ["current_password": password])
        }
        guard answer.status == .seeOther else {
            throw TestClientError("The admin was not confirmed: \(answer.status.code) \(answer.text.prefix(200))")
        }
        return answer
    }

    /// Signs out through the app's sign-out form (`POST /signout`, or `path`).
    @discardableResult
    public func signOut(path: String = "/signout") async throws -> TestResponse {
        try await post(path, form: [:])
    }
}
