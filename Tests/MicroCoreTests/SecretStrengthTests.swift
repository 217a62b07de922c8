import Foundation
import MicroCore
import MicroTestSupport
import MicroTesting
import Testing

/// A production session secret that is easy to guess is refused at start-up, with a message
/// naming MICRO_SESSION_SECRET and how to make a good one; development and tests accept it.
@Suite struct SecretStrengthTests {
    static let weak: [(secret: String, reason: String)] = [
        (String(repeating: "s", count: 40), "one character repeated"),
        (String(repeating: "a", count: 16) + String(repeating: "b", count: 16), "only 2 different characters"),
        (String(repeating: "ab12", count: 10), "only 4 different characters"),
        (String(repeating: "changeme", count: 4), "only 7 different characters"),
        (String(repeating: "Tr0ub4dor&3x", count: 3), "the same 12 characters repeated"),
        (String(repeating: "0123456789abcdef", count: 2), "the same 16 characters repeated"),
        ("my-super-Secret-session-key-2024!!", "placeholder word 'secret'"),
        ("Password-For-Production-Use-Only-1", "placeholder word 'password'"),
        ("example_value_for_the_session_key_x", "placeholder word 'example'"),
        ("CHANGE_ME_before_going_live_2025_xyz", "placeholder word 'changeme'"),
        ("0123456789abcdefghijklmnopqrstuvwxyz", "a run of neighbouring characters"),
        ("zyxwvutsrqponmlkjihgfedcba9876543210", "a run of neighbouring characters"),
    ]

    private func app(_ environment: Environment, secret: String) -> App {
        let app = testApp(environment: environment) { $0.sessions.secret = secret }
        app.get("/") { request in request.session["x"] ?? "none" }
        return app
    }

    @Test(arguments: weak.map(\.secret))
    func aWeakSecretIsRefusedInProduction(_ secret: String) async throws {
        let reason = try #require(Self.weak.first { $0.secret == secret }?.reason)
        let error = try #require(await startFailure(app(.production, secret: secret)))
        #expect(error.message.contains("MICRO_SESSION_SECRET"))
        #expect(error.message.contains(reason), "\(error.message)")
        #expect(error.message.contains("openssl rand -hex 32"))
        // The message never repeats the secret.
        #expect(!error.message.contains(secret))
    }

    @Test func developmentAndTestsAcceptAnySecretOfTheLength() async throws {
        for environment in [Environment.development, .test] {
            #expect(try await TestClient(app(environment, secret: String(repeating: "s", count: 40))).get("/").status == .ok)
        }
    }

    @Test func randomSecretsPass() throws {
        var generator = SystemRandomNumberGenerator()
        for _ in 0..<1000 {
            // openssl rand -hex 32
            let hex = (0..<32).map { _ in String(format: "%02x", UInt8.random(in: 0...255, using: &generator)) }.joined()
            #expect(SecretStrength.weakness(of: hex) == nil, "\(hex)")
        }
        // Secrets made by openssl rand -base64 32 and Python's secrets.token_urlsafe(32).
        for secret in [
            "q3V9bK0yJ7cT2wXhR8mN1pLs4dGfA6eZuYiO5tEvBnM=", "hY2sk9Lw0Pq+vXr7/NcTbJ3mZa8eUfD1gR5iK6oC4Q=",
            "Qm9HbXp3c0R6YkJ5VTdLcTJ3Y1hOa0xGcDhTZTRqTmQ", "tP_8xN3qLr6ZkW1vYj0cHs9bFm2gUe7aKd5oRi4wXyE",
        ] {
            #expect(SecretStrength.weakness(of: secret) == nil, "\(secret)")
        }
    }

    @Test func aStrongSecretServesInProduction() async throws {
        let secret = "5f0c9e2a7b1d4863a9e0f7c2b6d1358e4a7c0f9b2e6d1a3c8b5f7e0d2c4a9b61"
        #expect(try await TestClient(app(.production, secret: secret)).get("/").status == .ok)
    }
}
