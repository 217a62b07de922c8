import Foundation
import Micro
import MicroAccounts
import MicroAuth
import MicroCore
import MicroTestSupport
import MicroTesting
import Testing

/// The account pages' messages through real mail servers (Tests/Mail/with-mail-server.sh's
/// aiosmtpd): the invitation and the reset link arrive with the link and no password, and a
/// server that cannot take them is said on the page, never a crash or a message in clear.
@Suite(.enabled(if: MailTestServers.current != nil, "needs the servers of Tests/Mail/with-mail-server.sh"))
struct AccountMailServerTests {
    var servers: MailTestServers { MailTestServers.current! }

    /// An app whose users are `ann` (admin) and `user` (user@example.com), mailing through `smtp`.
    private func makeApp(_ folder: TemporaryFolder, smtp: SmtpSettings) throws -> App {
        let app = isolatedApp()
        let users = try SqliteUserStore(path: folder.file("users.db"), create: true)
        try users.save(username: "ann", passwordHash: TestHashes.annPassword, name: "Ann Smith", roles: ["admin"])
        try users.save(username: "user", passwordHash: TestHashes.secret123, name: "Una User", email: "user@example.com")
        var authentication = Authentication(users: users)
        authentication.hasher = PasswordHasher(threads: 1)
        authentication.passwordCost = 4
        app.use(authentication)
        var accounts = Accounts()
        var mail = try AccountMail(smtp: smtp)
        mail.sendTimeout = .seconds(20)
        accounts.mail = mail
        app.use(accounts)
        return app
    }

    private func smtp(port: Int, security: SmtpSecurity, login: Bool) throws -> SmtpSettings {
        SmtpSettings(
            host: security.usesTls ? "localhost" : "127.0.0.1", port: port, security: security, from: try MailAddress("tools@lab.example.org"),
            fromName: "Lab Tools", login: login ? servers.login : nil, password: login ? servers.password : nil,
            certificateAuthorityFile: security.usesTls ? servers.caFile : nil)
    }

    /// The text of the message to `address` that holds `marker`, once the server kept it.
    private func received(by server: String, to address: String, holding marker: String) async throws -> String? {
        let folder = servers.maildir + "/" + server
        let deadline = ContinuousClock.now + .seconds(20)
        while ContinuousClock.now < deadline {
            for name in try FileManager.default.contentsOfDirectory(atPath: folder) where name.hasSuffix(".eml") {
                let data = try String(contentsOfFile: folder + "/" + name, encoding: .utf8)
                if data.contains("To: \(address)") || data.contains("<\(address)>"), data.contains(marker) { return data }
            }
            try await Task.sleep(for: .milliseconds(100))
        }
        return nil
    }

    /// The set-up link in a message's quoted-printable text (soft line breaks undone).
    private func link(in data: String) -> String? {
        let text = data.replacingOccurrences(of: "=\r\n", with: "").replacingOccurrences(of: "=3D", with: "=")
        return text.range(of: #"https?://[^\s]+/password/setup\?key=[A-Za-z0-9_-]{43}"#, options: .regularExpression).map { String(text[$0]) }
    }

    @Test func anInvitationArrivesOverStartTlsWithItsLinkAndNoPassword() async throws {
        let folder = try TemporaryFolder()
        defer { folder.remove() }
        let app = try makeApp(folder, smtp: try smtp(port: servers.startTlsPort, security: .startTls, login: true))
        let ann = TestClient(app)
        try await ann.signIn("ann", "ann-password")
        try await ann.confirmAdmin("ann-password")
        let invited = "newcomer\(UUID().uuidString.prefix(6).lowercased())"
        let page = try await ann.post("/admin/users/invite", form: ["new_username": invited, "roles": "", "email": "\(invited)@example.com"])
        #expect(page.status == .ok, "\(page.text)")
        #expect(page.text.contains("The link was mailed to \(invited)@example.com"))
        let data = try #require(try await received(by: "starttls", to: "\(invited)@example.com", holding: "Choose your password"))
        let url = try #require(link(in: data))
        #expect(page.text.contains(url))
        #expect(!data.contains("$2"))
    }

    @Test func aResetLinkArrivesOverPlainSmtpToTheLoopback() async throws {
        let folder = try TemporaryFolder()
        defer { folder.remove() }
        let app = try makeApp(folder, smtp: try smtp(port: servers.plainPort, security: .plain, login: false))
        let client = TestClient(app)
        _ = try await client.get("/password/forgot")
        #expect(try await client.post("/password/forgot", form: ["email": "user@example.com"]).status == .ok)
        let data = try #require(try await received(by: "plain", to: "user@example.com", holding: "Reset your password"))
        #expect(link(in: data) != nil)
    }

    @Test func aServerWithoutStartTlsOrDownIsA503AndNothingGoesInClear() async throws {
        let folder = try TemporaryFolder()
        defer { folder.remove() }
        // The server that offers no STARTTLS, asked for it.
        let app = try makeApp(folder, smtp: try smtp(port: servers.noTlsPort, security: .startTls, login: true))
        let ann = TestClient(app)
        try await ann.signIn("ann", "ann-password")
        try await ann.confirmAdmin("ann-password")
        let page = try await ann.post("/admin/users/invite", form: ["new_username": "refused", "roles": "", "email": "refused@example.com"])
        #expect(page.status == .serviceUnavailable && page.text.contains("could not be sent") && page.text.contains("data-setup-link="))
        let kept = try FileManager.default.contentsOfDirectory(atPath: servers.maildir + "/notls")
            .filter { $0.hasSuffix(".eml") }
            .map { try String(contentsOfFile: servers.maildir + "/notls/" + $0, encoding: .utf8) }
        #expect(!kept.contains { $0.contains("refused@example.com") })

        // A port nothing listens on (tcpmux's, served nowhere now): the reset is taken, fails, and
        // the next asks are 503 alike.
        let other = try TemporaryFolder()
        defer { other.remove() }
        let down = try makeApp(other, smtp: try smtp(port: 1, security: .plain, login: false))
        let client = TestClient(down)
        _ = try await client.get("/password/forgot")
        #expect(try await client.post("/password/forgot", form: ["email": "user@example.com"]).status == .ok)
        var answer = TestResponse?.none
        for _ in 0..<100 {
            answer = try await client.post("/password/forgot", form: ["email": "nobody@example.com"])
            if answer?.status == .serviceUnavailable { break }
            try await Task.sleep(for: .milliseconds(100))
        }
        #expect(answer?.status == .serviceUnavailable && answer?.text.contains("No message can be sent right now") == true)
    }
}
