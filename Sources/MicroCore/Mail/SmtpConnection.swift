import NIOCore
import NIOPosix
import NIOSSL

/// One TCP connection to a mail server, TLS from the start or after `STARTTLS`: commands go
/// out as they are given, replies come back one at a time, each waited for within a time.
struct SmtpConnection: Sendable {
    private let channel: any Channel
    private let replies: NIOLoopBound<SmtpReplyHandler>

    /// Connects to `host:port`, with TLS from the first byte when `tls` is given (the
    /// certificate checked for `host`); throws what went wrong, in words for the log.
    static func open(host: String, port: Int, tls: NIOSSLContext?, within timeout: Duration) async throws(SmtpFailure) -> SmtpConnection {
        do {
            // The handler comes back from the initializer: a server that closes at once takes it
            // out of the pipeline before it could be looked up there.
            let (channel, replies) = try await ClientBootstrap(group: MultiThreadedEventLoopGroup.singleton)
                .connectTimeout(.nanoseconds(Int64(timeout.seconds * 1e9)))
                .connect(host: host, port: port) { channel in
                    channel.eventLoop.makeCompletedFuture {
                        if let tls { try channel.pipeline.syncOperations.addHandler(try Self.tlsHandler(tls, host: host)) }
                        let replies = SmtpReplyHandler()
                        try channel.pipeline.syncOperations.addHandler(replies)
                        return (channel, NIOLoopBound(replies, eventLoop: channel.eventLoop))
                    }
                }
            return SmtpConnection(channel: channel, replies: replies)
        } catch {
            throw SmtpFailure(connecting: error, within: timeout)
        }
    }

    /// Sends `text` as it is (a command and its CRLF, or a message's data), without waiting:
    /// a server that does not take it fails the wait for its reply.
    func send(_ text: String) {
        channel.writeAndFlush(ByteBuffer(string: text), promise: nil)
    }

    /// The server's next reply; fails with `timeoutFailure` when none comes within `timeout`,
    /// at once when the connection is closed, and when the task is cancelled.
    func reply(within timeout: Duration, orFail timeoutFailure: SmtpFailure) async throws(SmtpFailure) -> SmtpReply {
        let replies = self.replies
        let loop = channel.eventLoop
        let amount = TimeAmount.nanoseconds(Int64(max(0, timeout.seconds) * 1e9))
        do {
            return try await withTaskCancellationHandler {
                try await loop.flatSubmit { replies.value.nextReply(on: loop, within: amount, orFail: timeoutFailure) }.get()
            } onCancel: {
                loop.execute { replies.value.fail(SmtpFailure("the sending was cancelled")) }
            }
        } catch {
            throw SmtpFailure(describing: error)
        }
    }

    /// Puts TLS in front of the conversation, after the server's yes to `STARTTLS`; refuses
    /// when the server already sent more, which an attacker in between could have put there
    /// to be read as if it came over TLS (CVE-2011-0411's kind).
    func startTls(_ tls: NIOSSLContext, host: String) async throws(SmtpFailure) {
        let replies = self.replies
        let channel = self.channel
        do {
            try await channel.eventLoop.submit {
                guard !replies.value.hasUnreadBytes else {
                    throw SmtpFailure("the server sent more after its yes to STARTTLS, before TLS began")
                }
                try channel.pipeline.syncOperations.addHandler(try Self.tlsHandler(tls, host: host), position: .first)
            }.get()
        } catch {
            throw SmtpFailure(describing: error)
        }
    }

    /// Closes the connection (TLS's close_notify first, waited for a moment at most).
    func close() async {
        try? await channel.close().get()
    }

    /// NIOSSL's client handler, checking the certificate for `host`: by name for a host name
    /// (which also goes out as SNI), by address for an IP address (SNI has no place for one).
    private static func tlsHandler(_ tls: NIOSSLContext, host: String) throws -> NIOSSLClientHandler {
        try NIOSSLClientHandler(context: tls, serverHostname: IpAddress(host) == nil ? host : nil)
    }
}
