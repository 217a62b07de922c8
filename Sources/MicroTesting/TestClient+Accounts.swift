import MicroAuth
import MicroCore

extension TestClient {
    /// Signs in through the app's sign-in form, then sends `code` to the second step the app
    /// asks for (`/signin/two-factor`): a code from the user's authenticator, or a recovery
    /// code. Throws when either step is refused, and when no second step was asked for.
    ///
    /// ```swift
    /// let code = Totp(secret: secret).code(at: Int64(Date().timeIntervalSince1970))
    /// try await client.signIn("ann", "correct horse", code: code)
    /// ```
    @discardableResult
    public func signIn(_ username: String, _ password: String, code: String, path: String = "/signin") async throws -> TestResponse {
        let first = try await signIn(username, password, path: path)
        guard let step = first.location, step.hasSuffix(path + "/two-factor") else {
            throw TestClientError("\(username) was signed in without a second step (to \(first.location ?? "nowhere")): the code was not asked for")
        }
        let answer = try await post(step, form: ["code": code])
        guard answer.status == .seeOther, let location = answer.location, location != step, !location.hasSuffix(path) else {
            throw TestClientError("\(username)'s code was refused: \(answer.status.code) \(answer.text.prefix(200))")
        }
        return answer
    }

    /// Makes an API token as the signed-in user makes one on the account pages (`POST
    /// /account/tokens`, or `path`), their `password` confirming it (and `code`, for a user
    /// whose second factor is on); returns the token, for `Authorization: Bearer` in the
    /// requests of a script the test plays. It has `scopes`; with none, the app's default
    /// (read-only: a script that writes asks for `write`).
    ///
    /// ```swift
    /// try await client.signIn("ann", "correct horse")
    /// let token = try await client.makeApiToken(scopes: ["write"], password: "correct horse")
    /// let robot = TestClient(app)
    /// #expect(try await robot.post("/api/samples", json: sample, headers: ["Authorization": "Bearer \(token)"]).status == .created)
    /// ```
    public func makeApiToken(
        name: String = "test", expiresInDays: Int = 90, scopes: [String] = [], password: String, code: String? = nil,
        path: String = "/account/tokens"
    ) async throws -> String {
        let answer = try await post(
            path,
            form: [
                "name": name, "expires_in_days": String(expiresInDays), "scopes": scopes.joined(separator: " "), "current_password": password,
                "code": code ?? "",
            ],
            headers: ["Accept": "application/json"])
        guard answer.status == .created, let made = try? answer.decode(MadeToken.self) else {
            throw TestClientError("No token was made: \(answer.status.code) \(answer.text.prefix(200))")
        }
        return made.token
    }

    /// Changes the signed-in user's password on the account pages (`POST /account/password`,
    /// or `path`) from `current` to `new`: what a user whose password an admin set does first
    /// (every other page leads there until then). Throws when the app refuses it.
    ///
    /// ```swift
    /// try await client.signIn("bob", "the admin's choice 1")
    /// try await client.changePassword(from: "the admin's choice 1", to: "bob's own choice 2")
    /// ```
    @discardableResult
    public func changePassword(from current: String, to new: String, path: String = "/account/password") async throws -> TestResponse {
        let answer = try await post(path, form: ["current_password": current, "new_password": new, "new_password_confirmation": new])
        guard answer.status == .seeOther else {
            throw TestClientError("The password was not changed: \(answer.status.code) \(answer.text)")
        }
        return answer
    }

    private struct MadeToken: Decodable {
        let token: String
    }
}
