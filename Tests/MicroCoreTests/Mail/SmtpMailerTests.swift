import Foundation
@testable import MicroCore
import MicroTestSupport
import NIOSSL
import Testing

/// The client against a fake server in the same process: each step of the conversation, and
/// each way a server can fail it.
@Suite struct SmtpMailerTests {
    static let tools = try! MailAddress("tools@lab.example.org")
    static let ann = try! MailAddress("ann@example.com")
    static let message = MailMessage(
        from: tools, fromName: "Lab Tools", to: ann, toName: "Ann Lee", subject: "Grüße aus dem Labor", body: ".hidden\nHello Ann,\n\n– the lab\n")

    /// A mailer for `server` on `host`.
    func makeMailer(
        _ server: FakeSmtpServer, host: String = "127.0.0.1", security: SmtpSecurity = .plain, login: String? = nil, password: String? = nil,
        ca: String? = nil, replyTimeout: Duration = .seconds(5), totalTimeout: Duration = .seconds(20)
    ) throws -> SmtpMailer {
        let settings = SmtpSettings(
            host: host, port: server.port, security: security, from: Self.tools, login: login, password: password, certificateAuthorityFile: ca)
        return try SmtpMailer(settings: settings, connectTimeout: .seconds(2), replyTimeout: replyTimeout, totalTimeout: totalTimeout)
    }

    /// What sending `message` ended in: `sent`, or the error's description.
    func outcome(_ mailer: SmtpMailer, _ message: MailMessage = Self.message) async -> String {
        do {
            try await mailer.send(message)
            return "sent"
        } catch {
            return "\(error)"
        }
    }

    /// A server with `behaviour` for the length of `body`.
    func withServer(_ behaviour: FakeSmtpServer.Behaviour = .init(), implicitTls: NIOSSLContext? = nil, _ body: (FakeSmtpServer) async throws -> Void) async throws {
        let server = try await FakeSmtpServer.start(behaviour, implicitTls: implicitTls)
        do { try await body(server) } catch {
            await server.stop()
            throw error
        }
        await server.stop()
    }

    /// A folder with a certificate for `localhost` and 127.0.0.1 (`server`) and another (`stranger`).
    func withCertificates(_ body: (TlsCertificateFiles, TlsCertificateFiles) async throws -> Void) async throws {
        let folder = try TemporaryFolder()
        defer { folder.remove() }
        try await body(try TlsCertificateFiles(in: folder, name: "server"), try TlsCertificateFiles(in: folder, name: "stranger"))
    }

    @Test func aMessageGoesThroughInOrder() async throws {
        try await withServer { server in
            let mailer = try makeMailer(server)
            let result = await outcome(mailer)
            #expect(result == "sent")
            #expect(server.verbs == ["EHLO", "MAIL", "RCPT", "DATA", "QUIT"])
            #expect(server.commands[1].line == "MAIL FROM:<tools@lab.example.org>")
            #expect(server.commands[2].line == "RCPT TO:<ann@example.com>")
            #expect(server.messages == [Self.message.rendered])
            #expect(server.messages.first?.contains("\r\n.hidden\r\n") == true)
        }
    }

    @Test func multiLineRepliesAreReadWhole() async throws {
        var behaviour = FakeSmtpServer.Behaviour()
        behaviour.greeting = "220-fake.example.com ESMTP\r\n220-no spam here\r\n220 welcome"
        behaviour.answers["RCPT"] = "250-first\r\n250 2.1.5 Ok"
        try await withServer(behaviour) { server in
            let mailer = try makeMailer(server)
            let result = await outcome(mailer)
            #expect(result == "sent")
            #expect(server.messages.count == 1)
        }
    }

    @Test func startTlsComesBeforeTheLoginAndTheMessage() async throws {
        try await withCertificates { certificate, _ in
            var behaviour = FakeSmtpServer.Behaviour()
            behaviour.startTls = try FakeSmtpServer.tls(certificate)
            behaviour.authMethods = ["LOGIN", "PLAIN"]
            try await withServer(behaviour) { server in
                let mailer = try makeMailer(server, host: "localhost", security: .startTls, login: "tools", password: "right horse", ca: certificate.certificate)
                let result = await outcome(mailer)
                #expect(result == "sent")
                #expect(server.commands.map(\.overTls) == [false, false, true, true, true, true, true, true])
                #expect(server.verbs == ["EHLO", "STARTTLS", "EHLO", "AUTH", "MAIL", "RCPT", "DATA", "QUIT"])
                #expect(server.commands[3].line == "AUTH PLAIN " + Data("\0tools\0right horse".utf8).base64EncodedString())
                #expect(server.messages == [Self.message.rendered])
            }
        }
    }

    @Test func authLoginWhenItIsAllTheServerOffers() async throws {
        try await withCertificates { certificate, _ in
            var behaviour = FakeSmtpServer.Behaviour()
            behaviour.startTls = try FakeSmtpServer.tls(certificate)
            behaviour.authMethods = ["CRAM-MD5", "LOGIN"]
            try await withServer(behaviour) { server in
                let mailer = try makeMailer(server, host: "localhost", security: .startTls, login: "tools", password: "right horse", ca: certificate.certificate)
                let result = await outcome(mailer)
                #expect(result == "sent")
                let lines = server.commands.map(\.line)
                #expect(Array(lines[3...5]) == ["AUTH LOGIN", Data("tools".utf8).base64EncodedString(), Data("right horse".utf8).base64EncodedString()])
                #expect(server.commands[3...5].allSatisfy { $0.overTls })
            }
        }
    }

    @Test func aWrongPasswordFailsWithoutShowingIt() async throws {
        try await withCertificates { certificate, _ in
            var behaviour = FakeSmtpServer.Behaviour()
            behaviour.startTls = try FakeSmtpServer.tls(certificate)
            behaviour.authMethods = ["PLAIN"]
            try await withServer(behaviour) { server in
                let mailer = try makeMailer(server, host: "localhost", security: .startTls, login: "tools", password: "wrong horse", ca: certificate.certificate)
                let result = await outcome(mailer)
                #expect(result == "localhost:\(server.port): the server refused the login 'tools': 535 5.7.8 Authentication failed")
                #expect(!server.verbs.contains("MAIL"))
            }
        }
    }

    @Test func aPasswordTheServerEchoesIsBlackedOut() async throws {
        let token = Data("\0tools\0wrong horse".utf8).base64EncodedString()
        var behaviour = FakeSmtpServer.Behaviour()
        behaviour.authMethods = ["PLAIN"]
        behaviour.answers["AUTH"] = "535 you sent \(token), that is wrong horse"
        try await withServer(behaviour) { server in
            // Plain is allowed to this machine.
            let failure = try await outcome(makeMailer(server, login: "tools", password: "wrong horse"))
            #expect(failure == "127.0.0.1:\(server.port): the server refused the login 'tools': 535 you sent [password], that is [password]")
        }
    }

    @Test func noStartTlsOfferedMeansNothingIsSent() async throws {
        try await withCertificates { certificate, _ in
            var behaviour = FakeSmtpServer.Behaviour()
            behaviour.authMethods = ["PLAIN"]
            try await withServer(behaviour) { server in
                let mailer = try makeMailer(server, security: .startTls, login: "tools", password: "right horse", ca: certificate.certificate)
                let result = await outcome(mailer)
                #expect(result == "127.0.0.1:\(server.port): the server does not offer STARTTLS, which MICRO_SMTP_URL (smtp+starttls://) asks for: nothing was sent")
                #expect(server.verbs == ["EHLO"])
                #expect(server.messages.isEmpty)
            }
        }
    }

    @Test func repliesSentAheadOfTlsAreRefused() async throws {
        try await withCertificates { certificate, _ in
            var behaviour = FakeSmtpServer.Behaviour()
            behaviour.startTls = try FakeSmtpServer.tls(certificate)
            behaviour.startTlsAnswer = "220 go ahead\r\n250-fake.example.com\r\n250 AUTH PLAIN"
            try await withServer(behaviour) { server in
                let mailer = try makeMailer(server, host: "localhost", security: .startTls, ca: certificate.certificate)
                let result = await outcome(mailer)
                #expect(result == "localhost:\(server.port): the server sent more after its yes to STARTTLS, before TLS began")
                #expect(server.verbs == ["EHLO", "STARTTLS"])
            }
        }
    }

    @Test func implicitTlsFromTheFirstByte() async throws {
        try await withCertificates { certificate, _ in
            try await withServer(implicitTls: try FakeSmtpServer.tls(certificate)) { server in
                let mailer = try makeMailer(server, host: "localhost", security: .implicitTls, ca: certificate.certificate)
                let result = await outcome(mailer)
                #expect(result == "sent")
                #expect(server.commands.allSatisfy { $0.overTls })
                #expect(server.messages == [Self.message.rendered])
            }
        }
    }

    @Test func aCertificateFromAnotherCaIsRefused() async throws {
        try await withCertificates { certificate, stranger in
            try await withServer(implicitTls: try FakeSmtpServer.tls(stranger)) { server in
                let failure = try await outcome(makeMailer(server, host: "localhost", security: .implicitTls, ca: certificate.certificate))
                #expect(failure.hasPrefix("localhost:\(server.port): the server's certificate was refused (is it signed by a CA this client trusts"), "\(failure)")
                #expect(server.commands.isEmpty)
            }
            var behaviour = FakeSmtpServer.Behaviour()
            behaviour.startTls = try FakeSmtpServer.tls(stranger)
            try await withServer(behaviour) { server in
                let failure = try await outcome(makeMailer(server, host: "localhost", security: .startTls, ca: certificate.certificate))
                #expect(failure.hasPrefix("localhost:\(server.port): the server's certificate was refused (is it signed by a CA this client trusts"), "\(failure)")
                #expect(server.verbs == ["EHLO", "STARTTLS"])
            }
        }
    }

    @Test(arguments: [
        ("MAIL", "553 5.7.1 <tools@lab.example.org>: Sender address rejected", "the server refused the sender tools@lab.example.org: 553 5.7.1 <tools@lab.example.org>: Sender address rejected"),
        ("RCPT", "550 5.1.1 <ann@example.com>: Recipient address rejected", "the server refused the recipient ann@example.com: 550 5.1.1 <ann@example.com>: Recipient address rejected"),
        ("RCPT", "450 4.2.0 try again later", "the server refused the recipient ann@example.com: 450 4.2.0 try again later"),
        ("DATA", "554 5.5.1 no valid recipients", "the server refused DATA: 554 5.5.1 no valid recipients"),
        (".", "552 5.3.4 message too big", "the server refused the message: 552 5.3.4 message too big"),
        ("EHLO", "554 5.7.1 not you", "the server refused EHLO: 554 5.7.1 not you"),
    ])
    func aRefusalIsQuoted(verb: String, answer: String, expected: String) async throws {
        var behaviour = FakeSmtpServer.Behaviour()
        behaviour.answers[verb] = answer
        try await withServer(behaviour) { server in
            let mailer = try makeMailer(server)
            let result = await outcome(mailer)
            #expect(result == "127.0.0.1:\(server.port): \(expected)")
        }
    }

    @Test func aRefusingGreetingEndsIt() async throws {
        var behaviour = FakeSmtpServer.Behaviour()
        behaviour.greeting = "554 5.7.1 \u{1B}[2Jgo away"
        try await withServer(behaviour) { server in
            let mailer = try makeMailer(server)
            let result = await outcome(mailer)
            #expect(result == "127.0.0.1:\(server.port): the server refused the connection: 554 5.7.1 \\u{1B}[2Jgo away")
            #expect(server.commands.isEmpty)
        }
    }

    @Test(arguments: ["CONNECT", "EHLO", "RCPT", "DATA"])
    func aServerThatClosesEarlyFailsTheMessage(after verb: String) async throws {
        var behaviour = FakeSmtpServer.Behaviour()
        behaviour.closeAfter = verb
        try await withServer(behaviour) { server in
            let mailer = try makeMailer(server)
            let result = await outcome(mailer)
            #expect(result == "127.0.0.1:\(server.port): the server closed the connection")
            #expect(server.messages.isEmpty)
        }
    }

    @Test func aServerThatDoesNotAnswerQuitIsNotWaitedForLong() async throws {
        var behaviour = FakeSmtpServer.Behaviour()
        behaviour.quietAfter = "."
        try await withServer(behaviour) { server in
            let mailer = try makeMailer(server, replyTimeout: .seconds(30))
            let start = ContinuousClock.now
            let result = await outcome(mailer)
            #expect(result == "sent")
            #expect(ContinuousClock.now - start < .seconds(15))
            #expect(server.messages.count == 1)
        }
    }

    @Test func aSilentServerTimesOut() async throws {
        var behaviour = FakeSmtpServer.Behaviour()
        behaviour.quietAfter = "EHLO"
        try await withServer(behaviour) { server in
            let start = ContinuousClock.now
            let mailer = try makeMailer(server, replyTimeout: .milliseconds(300))
            let failure = await outcome(mailer)
            // MAIL FROM's, unless a machine this busy kept an earlier reply waiting as long.
            #expect(failure.hasPrefix("127.0.0.1:\(server.port): no reply to ") && failure.hasSuffix(" within 0.3 s"), "\(failure)")
            #expect(server.messages.isEmpty)
            #expect(ContinuousClock.now - start < .seconds(10))
        }
    }

    @Test func theWholeMessageHasATimeLimit() async throws {
        var behaviour = FakeSmtpServer.Behaviour()
        behaviour.quietAfter = "CONNECT"
        try await withServer(behaviour) { server in
            let start = ContinuousClock.now
            let failure = try await outcome(makeMailer(server, replyTimeout: .seconds(30), totalTimeout: .milliseconds(400)))
            #expect(failure == "127.0.0.1:\(server.port): no reply to the greeting within the 0.4 s a message may take in all")
            #expect(ContinuousClock.now - start < .seconds(10))
        }
    }

    @Test func anOverlongReplyLineIsRefused() async throws {
        var behaviour = FakeSmtpServer.Behaviour()
        behaviour.greeting = "220 " + String(repeating: "x", count: 600)
        try await withServer(behaviour) { server in
            let mailer = try makeMailer(server)
            let result = await outcome(mailer)
            #expect(result == "127.0.0.1:\(server.port): the server sent a reply line longer than 512 bytes")
        }
    }

    @Test func aServerThatIsDownFailsAtOnce() async throws {
        let server = try await FakeSmtpServer.start(.init())
        await server.stop()
        let start = ContinuousClock.now
        let mailer = try makeMailer(server)
        let result = await outcome(mailer)
        #expect(result == "127.0.0.1:\(server.port): connection refused")
        #expect(ContinuousClock.now - start < .seconds(10))
    }

    @Test func cancellingStopsTheWait() async throws {
        var behaviour = FakeSmtpServer.Behaviour()
        behaviour.quietAfter = "CONNECT"
        try await withServer(behaviour) { server in
            let mailer = try makeMailer(server, replyTimeout: .seconds(30))
            let start = ContinuousClock.now
            let sending = Task { await outcome(mailer) }
            try await Task.sleep(for: .milliseconds(200))
            sending.cancel()
            #expect(await sending.value == "127.0.0.1:\(server.port): the sending was cancelled")
            #expect(ContinuousClock.now - start < .seconds(15))
        }
    }
}
