import MicroAuth
import MicroCore

extension TestClient {
    /// Turns two-factor sign-in on for the signed-in user as they would on the account pages
    /// (`POST /account/two-factor/setup` with their `password`, then `.../enable` with a code):
    /// `code` makes the code from the secret the page shows (Base32), as their authenticator
    /// would. Returns that secret and the recovery codes. Throws when either step is refused.
    ///
    /// ```swift
    /// try await client.signIn("ann", "correct horse")
    /// let setup = try await client.turnOnTwoFactor(password: "correct horse") { secret in
    ///     Totp(secret: Base32.decode(secret) ?? []).code(at: Int64(Date().timeIntervalSince1970))
    /// }
    /// ```
    ///
    /// It reads the secret and the codes from the built-in pages' `data-totp-secret` and
    /// `data-recovery-code` attributes: an app's own templates for those pages keep them.
    @discardableResult
    public func turnOnTwoFactor(password: String, path: String = "/account/two-factor", code: (String) -> String) async throws -> TwoFactorSetup {
        let setup = try await post(path + "/setup", form: ["current_password": password])
        guard setup.status == .ok, let secret = Self.values(of: "data-totp-secret", in: setup.text).first else {
            throw TestClientError("Two-factor setup was refused: \(setup.status.code) \(setup.text.prefix(200))")
        }
        let enabled = try await post(path + "/enable", form: ["code": code(secret)])
        let codes = Self.values(of: "data-recovery-code", in: enabled.text)
        guard enabled.status == .ok, !codes.isEmpty else {
            throw TestClientError("Two-factor was not turned on: \(enabled.status.code) \(enabled.text.prefix(200))")
        }
        return TwoFactorSetup(secret: secret, recoveryCodes: codes)
    }

    /// The values of `attribute` in `html`, in order.
    private static func values(of attribute: String, in html: String) -> [String] {
        html.components(separatedBy: attribute + "=\"").dropFirst().compactMap { $0.split(separator: "\"", maxSplits: 1).first.map(String.init) }
    }
}
