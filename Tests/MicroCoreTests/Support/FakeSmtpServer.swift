import Foundation
import MicroCore
import MicroTestSupport
import NIOCore
import NIOPosix
import NIOSSL

/// A mail server on 127.0.0.1 that speaks just enough SMTP for the client's tests, as told by
/// its ``Behaviour``, and keeps each command (and whether it came over TLS) and each message.
final class FakeSmtpServer: Sendable {
    /// How it answers.
    struct Behaviour: Sendable {
        /// The greeting (`554 go away` refuses); nil sends none.
        var greeting: String? = "220 fake.example.com ESMTP"
        /// The extensions `EHLO` names, besides `STARTTLS` and `AUTH`.
        var extensions = ["8BITMIME", "SIZE 1000000"]
        /// Offers `STARTTLS`, with this context, when set.
        var startTls: NIOSSLContext?
        /// What it answers `STARTTLS`, line ends included past the first line.
        var startTlsAnswer = "220 2.0.0 Ready to start TLS"
        /// The methods `AUTH` offers (none: no `AUTH`).
        var authMethods: [String] = []
        /// The password `AUTH` takes.
        var password = "right horse"
        /// What it answers a verb (`MAIL`, `RCPT`, `DATA`, `EHLO`, `AUTH`, `.` for the end of the data) instead of its own answer.
        var answers: [String: String] = [:]
        /// After answering this verb (`CONNECT`: before the greeting), it answers nothing more.
        var quietAfter: String?
        /// After answering this verb (`CONNECT`: before the greeting), it closes the connection.
        var closeAfter: String?
    }

    /// A command as received.
    struct Command: Sendable, Equatable, CustomStringConvertible {
        var line: String
        var overTls: Bool
        var description: String { overTls ? "\(line) (TLS)" : line }
    }

    let port: Int
    private let channel: any Channel
    private let record: Locked<(commands: [Command], messages: [String])>

    private init(port: Int, channel: any Channel, record: Locked<(commands: [Command], messages: [String])>) {
        self.port = port
        self.channel = channel
        self.record = record
    }

    /// The commands received so far, on every connection, in order.
    var commands: [Command] { record.withLock { $0.commands } }
    /// Each message's data, its dot-stuffing undone.
    var messages: [String] { record.withLock { $0.messages } }
    /// The verbs received (`EHLO`, `MAIL`, ...).
    var verbs: [String] { commands.map { $0.line.split(separator: " ").first.map { $0.uppercased() } ?? "" } }

    /// A server answering as `behaviour` says, with TLS from the first byte when `implicitTls` is given.
    static func start(_ behaviour: Behaviour, implicitTls: NIOSSLContext? = nil) async throws -> FakeSmtpServer {
        let record = Locked<(commands: [Command], messages: [String])>(([], []))
        let channel = try await ServerBootstrap(group: MultiThreadedEventLoopGroup.singleton)
            .serverChannelOption(.socketOption(.so_reuseaddr), value: 1)
            .childChannelInitializer { channel in
                channel.eventLoop.makeCompletedFuture {
                    if let implicitTls { try channel.pipeline.syncOperations.addHandler(NIOSSLServerHandler(context: implicitTls)) }
                    try channel.pipeline.syncOperations.addHandler(
                        Session(behaviour: behaviour, record: record, overTls: implicitTls != nil))
                }
            }
            .bind(host: "127.0.0.1", port: 0)
            .get()
        return FakeSmtpServer(port: channel.localAddress!.port!, channel: channel, record: record)
    }

    /// Stops listening.
    func stop() async {
        try? await channel.close().get()
    }

    /// A TLS context for `localhost` and 127.0.0.1 from `files`.
    static func tls(_ files: TlsCertificateFiles) throws -> NIOSSLContext {
        let configuration = TLSConfiguration.makeServerConfiguration(
            certificateChain: try NIOSSLCertificate.fromPEMFile(files.certificate).map { .certificate($0) },
            privateKey: .privateKey(try NIOSSLPrivateKey(file: files.key, format: .pem)))
        return try NIOSSLContext(configuration: configuration)
    }

    /// One connection's conversation.
    private final class Session: ChannelInboundHandler {
        typealias InboundIn = ByteBuffer
        typealias OutboundOut = ByteBuffer

        let behaviour: Behaviour
        let record: Locked<(commands: [Command], messages: [String])>
        var overTls: Bool
        var pending: [UInt8] = []
        var data: [String]?
        var loginStep = 0
        var loginName = ""
        var quiet = false

        init(behaviour: Behaviour, record: Locked<(commands: [Command], messages: [String])>, overTls: Bool) {
            self.behaviour = behaviour
            self.record = record
            self.overTls = overTls
        }

        func channelActive(context: ChannelHandlerContext) {
            if behaviour.closeAfter == "CONNECT" { context.close(promise: nil); return }
            if behaviour.quietAfter == "CONNECT" { quiet = true; return }
            if let greeting = behaviour.greeting { answer(greeting, context: context) }
        }

        func channelRead(context: ChannelHandlerContext, data: NIOAny) {
            let buffer = unwrapInboundIn(data)
            pending += buffer.readableBytesView
            while let end = pending.firstIndex(of: 0x0A) {
                var line = Array(pending[..<end])
                pending.removeSubrange(...end)
                if line.last == 0x0D { line.removeLast() }
                handle(String(decoding: line, as: UTF8.self), context: context)
            }
        }

        func errorCaught(context: ChannelHandlerContext, error: any Error) {
            context.close(promise: nil)
        }

        private func handle(_ line: String, context: ChannelHandlerContext) {
            if var data {
                if line == "." {
                    self.data = nil
                    record.withLock { $0.messages.append(data.map { $0 + "\r\n" }.joined()) }
                    reply(".", behaviour.answers["."] ?? "250 2.0.0 Ok: queued", context: context)
                } else {
                    data.append(line.hasPrefix(".") ? String(line.dropFirst()) : line)
                    self.data = data
                }
                return
            }
            record.withLock { $0.commands.append(Command(line: line, overTls: overTls)) }
            if loginStep == 1 {
                loginName = String(decoding: Data(base64Encoded: line) ?? Data(), as: UTF8.self)
                loginStep = 2
                return answer("334 UGFzc3dvcmQ6", context: context)
            }
            if loginStep == 2 {
                loginStep = 0
                let password = String(decoding: Data(base64Encoded: line) ?? Data(), as: UTF8.self)
                let accepted = password == behaviour.password
                return reply("AUTH", behaviour.answers["AUTH"] ?? (accepted ? "235 2.7.0 Authentication successful" : "535 5.7.8 Authentication failed"), context: context)
            }
            let words = line.split(separator: " ")
            let verb = words.first.map { $0.uppercased() } ?? ""
            switch verb {
            case "EHLO":
                var lines = ["fake.example.com"] + behaviour.extensions
                if behaviour.startTls != nil, !overTls { lines.append("STARTTLS") }
                if !behaviour.authMethods.isEmpty { lines.append("AUTH " + behaviour.authMethods.joined(separator: " ")) }
                let text = lines.enumerated().map { "250\($0.offset == lines.count - 1 ? " " : "-")\($0.element)" }.joined(separator: "\r\n")
                reply(verb, behaviour.answers[verb] ?? text, context: context)
            case "STARTTLS":
                guard let tls = behaviour.startTls, !overTls else { return reply(verb, "502 5.5.1 No", context: context) }
                answer(behaviour.startTlsAnswer, context: context)
                overTls = true
                try? context.pipeline.syncOperations.addHandler(NIOSSLServerHandler(context: tls), position: .first)
            case "AUTH" where words.count > 1 && words[1].uppercased() == "PLAIN":
                let token = String(decoding: Data(base64Encoded: String(words.count > 2 ? words[2] : "")) ?? Data(), as: UTF8.self)
                let parts = token.split(separator: "\0", omittingEmptySubsequences: false)
                let accepted = parts.count == 3 && parts[2] == behaviour.password
                reply(verb, behaviour.answers[verb] ?? (accepted ? "235 2.7.0 Authentication successful" : "535 5.7.8 Authentication failed"), context: context)
            case "AUTH":
                loginStep = 1
                answer("334 VXNlcm5hbWU6", context: context)
            case "DATA":
                if let refusal = behaviour.answers[verb] { return reply(verb, refusal, context: context) }
                data = []
                reply(verb, "354 End data with <CR><LF>.<CR><LF>", context: context)
            case "QUIT":
                answer("221 2.0.0 Bye", context: context)
                context.close(promise: nil)
            case "MAIL", "RCPT", "RSET", "NOOP":
                reply(verb, behaviour.answers[verb] ?? "250 2.1.0 Ok", context: context)
            default:
                answer("500 5.5.2 What?", context: context)
            }
        }

        /// Answers `verb` with `text`, unless told to be quiet or to close after it.
        private func reply(_ verb: String, _ text: String, context: ChannelHandlerContext) {
            answer(text, context: context)
            if behaviour.quietAfter == verb { quiet = true }
            if behaviour.closeAfter == verb { context.close(promise: nil) }
        }

        private func answer(_ text: String, context: ChannelHandlerContext) {
            guard !quiet else { return }
            context.writeAndFlush(wrapOutboundOut(ByteBuffer(string: text + "\r\n")), promise: nil)
        }
    }
}
