import Foundation
import MicroCore
import MicroTestSupport
import Testing

/// The client against real mail servers: aiosmtpd, which Tests/Mail/with-mail-server.sh starts
/// and names in MICRO_TEST_SMTP_* (the suite is off without them).
@Suite(.enabled(if: MailTestServers.current != nil, "needs the servers of Tests/Mail/with-mail-server.sh"))
struct SmtpServerTests {
    var servers: MailTestServers { MailTestServers.current! }

    /// What a server kept of one message: the message as received and what Python's email package read in it.
    struct Received {
        let data: String
        let record: [String: Any]
        func string(_ key: String) -> String? { record[key] as? String }
    }

    /// A message of its own (its subject says which test sent it), in UTF-8 with a line that SMTP must dot-stuff.
    static func message(_ test: String) -> MailMessage {
        MailMessage(
            from: try! MailAddress("tools@lab.example.org"), fromName: "Lab Tools — Prüfstand",
            to: try! MailAddress("ann.lee@example.com"), toName: "Ann \"the lab\" Lee",
            subject: "Grüße: \(test) \(UUID().uuidString.prefix(8)) — 密码重置",
            body: "Hallo Ann,\n\n.hidden behind a dot\nÜmlaute, 日本語, emoji 🙂, and a long line: \(String(repeating: "abc ", count: 40))end\n– the lab\n")
    }

    func makeMailer(port: Int, host: String = "localhost", security: SmtpSecurity, login: String? = nil, password: String? = nil, ca: String? = nil)
        throws -> SmtpMailer
    {
        let settings = SmtpSettings(
            host: host, port: port, security: security, from: try MailAddress("tools@lab.example.org"), login: login, password: password,
            certificateAuthorityFile: ca ?? (security.usesTls ? servers.caFile : nil))
        return try SmtpMailer(settings: settings, connectTimeout: .seconds(5), replyTimeout: .seconds(10), totalTimeout: .seconds(30))
    }

    /// The message with `message`'s Message-ID in the server's folder (`plain`, `starttls`, `tls`, `notls`).
    func received(_ message: MailMessage, by server: String) throws -> Received? {
        let folder = servers.maildir + "/" + server
        for name in try FileManager.default.contentsOfDirectory(atPath: folder) where name.hasSuffix(".eml") {
            let data = try String(contentsOfFile: folder + "/" + name, encoding: .utf8)
            guard data.contains("Message-ID: <\(message.messageId)>") else { continue }
            let json = try Data(contentsOf: URL(fileURLWithPath: folder + "/" + name.dropLast(4) + ".json"))
            return Received(data: data, record: try JSONSerialization.jsonObject(with: json) as! [String: Any])
        }
        return nil
    }

    /// What sending ended in: the error's description, or `sent`.
    func outcome(_ mailer: SmtpMailer, _ message: MailMessage) async -> String {
        do {
            try await mailer.send(message)
            return "sent"
        } catch let error as MailError {
            return error.description
        } catch {
            return "not a MailError: \(error)"
        }
    }

    /// Checks that `message` arrived intact: byte for byte, and as Python's email package reads it.
    func expectIntact(_ message: MailMessage, _ received: Received, tls: Bool, login: String?) {
        #expect(received.data == message.rendered)
        #expect(received.string("mail_from") == "tools@lab.example.org")
        #expect(received.record["rcpt_tos"] as? [String] == ["ann.lee@example.com"])
        #expect(received.record["tls"] as? Bool == tls)
        #expect(received.record["login"] as? String == login)
        #expect(received.record["headers"] as? [String] == [
            "Date", "Message-ID", "From", "To", "Subject", "MIME-Version", "Content-Type", "Content-Transfer-Encoding",
        ])
        #expect(received.record["from"] as? [String] == ["Lab Tools — Prüfstand", "tools@lab.example.org"])
        #expect(received.record["to"] as? [String] == ["Ann \"the lab\" Lee", "ann.lee@example.com"])
        #expect(received.string("subject") == message.subject)
        // Python keeps the wire's CRLF line ends in the text it decodes.
        #expect(received.string("body")?.replacingOccurrences(of: "\r\n", with: "\n") == message.body)
        #expect((received.record["defects"] as? [String])?.isEmpty == true)
    }

    @Test func aMessageArrivesIntactOverPlainSmtp() async throws {
        let message = Self.message("plain")
        let mailer = try makeMailer(port: servers.plainPort, host: "127.0.0.1", security: .plain)
        let sent = await outcome(mailer, message)
        #expect(sent == "sent")
        let received = try #require(try received(message, by: "plain"))
        expectIntact(message, received, tls: false, login: nil)
    }

    @Test func aMessageArrivesIntactOverStartTlsWithALogin() async throws {
        let message = Self.message("starttls")
        let mailer = try makeMailer(port: servers.startTlsPort, security: .startTls, login: servers.login, password: servers.password)
        let sent = await outcome(mailer, message)
        #expect(sent == "sent")
        let received = try #require(try received(message, by: "starttls"))
        expectIntact(message, received, tls: true, login: servers.login)
    }

    @Test func aMessageArrivesIntactOverImplicitTls() async throws {
        let message = Self.message("smtps")
        let mailer = try makeMailer(port: servers.tlsPort, security: .implicitTls, login: servers.login, password: servers.password)
        let sent = await outcome(mailer, message)
        #expect(sent == "sent")
        let received = try #require(try received(message, by: "tls"))
        expectIntact(message, received, tls: true, login: servers.login)
    }

    @Test func startTlsAskedOfAServerWithoutItSendsNothing() async throws {
        let message = Self.message("no starttls")
        let failure = try await outcome(makeMailer(port: servers.noTlsPort, security: .startTls), message)
        #expect(failure == "localhost:\(servers.noTlsPort): the server does not offer STARTTLS, which MICRO_SMTP_URL (smtp+starttls://) asks for: nothing was sent")
        #expect(try FileManager.default.contentsOfDirectory(atPath: servers.maildir + "/notls").isEmpty)
    }

    @Test func aServerThatRequiresStartTlsRefusesAPlainClient() async throws {
        let message = Self.message("plain to starttls")
        let failure = try await outcome(makeMailer(port: servers.startTlsPort, host: "127.0.0.1", security: .plain), message)
        #expect(failure.hasPrefix("127.0.0.1:\(servers.startTlsPort): the server refused the sender tools@lab.example.org: 530 "), "\(failure)")
        #expect(try received(message, by: "starttls") == nil)
    }

    @Test func aWrongPasswordFailsWithoutShowingIt() async throws {
        let message = Self.message("wrong password")
        let wrong = "not-" + servers.password
        let mailer = try makeMailer(port: servers.startTlsPort, security: .startTls, login: servers.login, password: wrong)
        let failure = await outcome(mailer, message)
        #expect(failure.hasPrefix("localhost:\(servers.startTlsPort): the server refused the login '\(servers.login)': 535 "), "\(failure)")
        #expect(!failure.contains(wrong))
        #expect(try received(message, by: "starttls") == nil)
    }

    @Test func aServerThatIsDownFailsQuickly() async throws {
        // A port nothing listens on any more.
        let stopped = try await FakeSmtpServer.start(.init())
        await stopped.stop()
        let socket = stopped.port
        let start = ContinuousClock.now
        let failure = try await outcome(makeMailer(port: socket, host: "127.0.0.1", security: .plain), Self.message("down"))
        #expect(failure == "127.0.0.1:\(socket): connection refused")
        #expect(ContinuousClock.now - start < .seconds(5))
    }

    @Test(arguments: [("tls", SmtpSecurity.implicitTls), ("starttls", SmtpSecurity.startTls)])
    func aCertificateNotSignedByTheGivenCaIsRefused(server: String, security: SmtpSecurity) async throws {
        let message = Self.message("other CA")
        let port = security == .implicitTls ? servers.tlsPort : servers.startTlsPort
        let mailer = try makeMailer(port: port, security: security, login: servers.login, password: servers.password, ca: servers.otherCaFile)
        let failure = await outcome(mailer, message)
        #expect(failure.hasPrefix("localhost:\(port): the server's certificate was refused (is it signed by a CA this client trusts"), "\(failure)")
        #expect(!failure.contains(servers.password))
        #expect(try received(message, by: server) == nil)
    }

    @Test func aCertificateForAnotherNameIsRefused() async throws {
        // The certificate names localhost, not 127.0.0.1.
        let message = Self.message("other name")
        let mailer = try makeMailer(port: servers.tlsPort, host: "127.0.0.1", security: .implicitTls)
        let failure = await outcome(mailer, message)
        #expect(failure.hasPrefix("127.0.0.1:\(servers.tlsPort): the server's certificate does not name the host it was reached by: TLS failed"), "\(failure)")
        #expect(try received(message, by: "tls") == nil)
    }
}
