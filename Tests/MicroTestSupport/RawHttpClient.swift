import NIOConcurrencyHelpers
import NIOCore
import NIOPosix
import NIOSSL

/// A client for socket tests: sends arbitrary bytes over one TCP connection, collects what
/// the server sends back, and notices when the server closes the connection.
///
/// Every wait is bounded, so a server that misbehaves fails the test instead of hanging it.
///
/// ```swift
/// let client = try await RawHttpClient.connect(port: server.port)
/// try await client.send("GET /hello HTTP/1.1\r\nHost: x\r\n\r\n")
/// let response = try await client.readResponse()
/// ```
package final class RawHttpClient: Sendable {
    /// One response as it was read off the wire.
    package struct Response: Sendable, CustomStringConvertible {
        /// The status code.
        package var status: Int
        /// The reason phrase.
        package var reason: String
        /// The header fields, in order, as sent.
        package var headers: [(name: String, value: String)]
        /// The body bytes (de-chunked when the response was chunked).
        package var body: [UInt8]

        /// The first value of a header field, by case-insensitive name.
        package func header(_ name: String) -> String? {
            headers.first { $0.name.lowercased() == name.lowercased() }?.value
        }

        /// The body as UTF-8 text.
        package var text: String { String(decoding: body, as: UTF8.self) }

        package var description: String { "\(status) \(reason) \(headers.map { "\($0.name): \($0.value)" }) \(text.debugDescription)" }
    }

    /// Why a read failed.
    package enum Failure: Error, CustomStringConvertible {
        /// Nothing complete arrived in time; `received` is what had arrived.
        case timedOut(received: String)
        /// The server closed the connection in the middle of a response (or before one).
        case closed(received: String)
        /// The bytes are not an HTTP/1.1 response.
        case malformed(String)
        /// The connection has no socket whose options can be set.
        case notASocket

        package var description: String {
            switch self {
            case .timedOut(let received): "timed out; received \(received.debugDescription)"
            case .closed(let received): "connection closed; received \(received.debugDescription)"
            case .malformed(let detail): "malformed response: \(detail)"
            case .notASocket: "the connection is not a socket"
            }
        }
    }

    private let channel: any Channel
    private let inbox: Inbox
    private let pacedReads: Bool

    private init(channel: any Channel, inbox: Inbox, pacedReads: Bool) {
        self.channel = channel
        self.inbox = inbox
        self.pacedReads = pacedReads
    }

    /// Connects to `host:port`; throws when the connection is refused or takes over `timeout` seconds.
    ///
    /// A client that reads at its own pace passes `pacedReads`: it then receives only when it
    /// calls ``readMore()``, into a receive buffer of `receiveBuffer` bytes, so a server that
    /// sends more waits for it, as it would for a slow or stalled client. Waiting for a
    /// response (``readResponse(toHead:timeout:)``) reads as fast as it can.
    ///
    /// `tlsTrusting` speaks TLS (1.2 or 1.3) and trusts only the certificate in that PEM file,
    /// for the name `localhost`; a server that shows another one is closed on, so reads fail.
    /// `tlsCipherSuites` offers only those suites, at TLS 1.2 (a client the server should refuse).
    package static func connect(
        host: String = "127.0.0.1", port: Int, timeout: Double = 2, pacedReads: Bool = false, receiveBuffer: Int = 64 << 10,
        tlsTrusting certificate: String? = nil, tlsCipherSuites: [NIOTLSCipher]? = nil
    ) async throws -> RawHttpClient {
        let inbox = Inbox()
        let tls = try certificate.map { file in
            var configuration = TLSConfiguration.makeClientConfiguration()
            configuration.trustRoots = .file(file)
            configuration.minimumTLSVersion = .tlsv12
            // Closing waits this long at most for the server's close_notify.
            configuration.shutdownTimeout = .milliseconds(500)
            if let tlsCipherSuites {
                configuration.maximumTLSVersion = .tlsv12
                configuration.cipherSuiteValues = tlsCipherSuites
            }
            return try NIOSSLContext(configuration: configuration)
        }
        var bootstrap = ClientBootstrap(group: MultiThreadedEventLoopGroup.singleton)
        if pacedReads {
            bootstrap = bootstrap.channelOption(.autoRead, value: false)
                .channelOption(.socketOption(.so_rcvbuf), value: SocketOptionValue(receiveBuffer))
        }
        let channel = try await bootstrap
            .connectTimeout(.milliseconds(Int64(timeout * 1000)))
            .channelOption(.tcpOption(.tcp_nodelay), value: 1)
            .channelInitializer { channel in
                channel.eventLoop.makeCompletedFuture {
                    if let tls { try channel.pipeline.syncOperations.addHandler(NIOSSLClientHandler(context: tls, serverHostname: "localhost")) }
                    try channel.pipeline.syncOperations.addHandler(Collector(inbox: inbox))
                }
            }
            .connect(host: host, port: port)
            .get()
        return RawHttpClient(channel: channel, inbox: inbox, pacedReads: pacedReads)
    }

    // MARK: Sending

    /// Sends `text` as UTF-8, in one write.
    package func send(_ text: String) async throws {
        try await send(Array(text.utf8))
    }

    /// Sends `bytes` in one write.
    package func send(_ bytes: [UInt8]) async throws {
        try await channel.writeAndFlush(channel.allocator.buffer(bytes: bytes)).get()
    }

    /// Closes the sending side only (a half-close), and goes on receiving. A connection the
    /// server closed already (it answered before this client, stalled on a busy machine, got
    /// here) has nothing left to half-close: what it sent is still read.
    package func closeOutput() async throws {
        do {
            try await channel.close(mode: .output)
        } catch ChannelError.alreadyClosed {
            return
        }
    }

    /// Closes the connection (if the server has not already).
    package func close() async {
        try? await channel.close()
    }

    /// Resets the connection: closes it with `SO_LINGER` at zero, so the server gets a TCP
    /// reset, as from a client that crashed, rather than the end of its requests.
    package func reset() async throws {
        guard let socket = channel as? any SocketOptionProvider else { throw Failure.notASocket }
        try await socket.setSoLinger(linger(l_onoff: 1, l_linger: 0)).get()
        try await channel.close()
    }

    // MARK: Receiving

    /// Whether the connection is closed (by the server, by an error, or by ``close()``).
    package var isClosed: Bool { inbox.state.withLockedValue { $0.closed } }

    /// With paced reads: takes what the connection has received so far (one read).
    package func readMore() {
        channel.read()
    }

    /// How many bytes arrived in all, consumed or not.
    package var receivedCount: Int { inbox.state.withLockedValue { $0.received } }

    /// The bytes received and not yet consumed by ``readResponse(toHead:timeout:)``.
    package var unreadBytes: [UInt8] { inbox.state.withLockedValue { $0.bytes } }

    /// Reads the next response (an interim 1xx one too), waiting at most `timeout` seconds.
    /// `toHead` says the response answers a HEAD request, so it has no body whatever its
    /// `Content-Length`.
    package func readResponse(toHead: Bool = false, timeout: Double = 5) async throws -> Response {
        let deadline = ContinuousClock.now + .milliseconds(Int64(timeout * 1000))
        while true {
            let outcome: Result<Response, Failure>? = inbox.state.withLockedValue { state in
                do throws(Failure) {
                    if let (response, consumed) = try Self.parse(state.bytes[...], toHead: toHead, closed: state.closed) {
                        state.bytes.removeFirst(consumed)
                        return .success(response)
                    }
                } catch {
                    return .failure(error)
                }
                if state.closed { return .failure(.closed(received: String(decoding: state.bytes, as: UTF8.self))) }
                if ContinuousClock.now >= deadline { return .failure(.timedOut(received: String(decoding: state.bytes, as: UTF8.self))) }
                return nil
            }
            if let outcome { return try outcome.get() }
            if pacedReads { readMore() }
            try await Task.sleep(for: .milliseconds(2))
        }
    }

    /// Waits at most `timeout` seconds for the connection to close; returns whether it did.
    package func waitForClose(timeout: Double = 5) async -> Bool {
        let deadline = ContinuousClock.now + .milliseconds(Int64(timeout * 1000))
        while !isClosed {
            guard ContinuousClock.now < deadline else { return false }
            try? await Task.sleep(for: .milliseconds(2))
        }
        return true
    }

    // MARK: Parsing

    /// Parses one response from the front of `bytes`: the response and how many bytes it
    /// took, or nil when it is not complete yet.
    package static func parse(_ bytes: ArraySlice<UInt8>, toHead: Bool, closed: Bool) throws(Failure) -> (Response, Int)? {
        guard let headEnd = find([13, 10, 13, 10], in: bytes) else { return nil }
        let headText = String(decoding: bytes[bytes.startIndex..<headEnd], as: UTF8.self)
        var lines = headText.split(separator: "\r\n", omittingEmptySubsequences: false)[...]
        guard let statusLine = lines.popFirst() else { throw .malformed(headText) }
        let parts = statusLine.split(separator: " ", maxSplits: 2, omittingEmptySubsequences: false)
        guard parts.count >= 2, parts[0].hasPrefix("HTTP/1."), let status = Int(parts[1]) else {
            throw .malformed("status line \(String(statusLine).debugDescription)")
        }
        var headers: [(name: String, value: String)] = []
        for line in lines {
            guard let colon = line.firstIndex(of: ":") else { throw .malformed("header line \(String(line).debugDescription)") }
            headers.append((String(line[..<colon]), line[line.index(after: colon)...].trimmingSpaces))
        }
        var response = Response(status: status, reason: parts.count > 2 ? String(parts[2]) : "", headers: headers, body: [])
        let bodyStart = headEnd + 4
        if toHead || status < 200 || status == 204 || status == 304 {
            return (response, bodyStart - bytes.startIndex)
        }
        if response.header("Transfer-Encoding")?.lowercased().contains("chunked") == true {
            var position = bodyStart
            while true {
                guard let lineEnd = find([13, 10], in: bytes[position...]) else { return nil }
                let sizeText = String(decoding: bytes[position..<lineEnd], as: UTF8.self).split(separator: ";").first ?? ""
                guard let size = Int(sizeText.trimmingSpaces, radix: 16) else { throw .malformed("chunk size \(sizeText.debugDescription)") }
                position = lineEnd + 2
                if size == 0 {
                    // Trailer fields (none expected), then the final CRLF.
                    while true {
                        guard let trailerEnd = find([13, 10], in: bytes[position...]) else { return nil }
                        let empty = trailerEnd == position
                        position = trailerEnd + 2
                        if empty { return (response, position - bytes.startIndex) }
                    }
                }
                guard bytes.endIndex - position >= size + 2 else { return nil }
                response.body += bytes[position..<(position + size)]
                position += size + 2
            }
        }
        if let lengthText = response.header("Content-Length") {
            guard let length = Int(lengthText), length >= 0 else { throw .malformed("Content-Length \(lengthText)") }
            guard bytes.endIndex - bodyStart >= length else { return nil }
            response.body = Array(bytes[bodyStart..<(bodyStart + length)])
            return (response, bodyStart + length - bytes.startIndex)
        }
        // Delimited by the end of the connection.
        guard closed else { return nil }
        response.body = Array(bytes[bodyStart...])
        return (response, bytes.endIndex - bytes.startIndex)
    }

    /// The index where `needle` first starts in `haystack`.
    private static func find(_ needle: [UInt8], in haystack: ArraySlice<UInt8>) -> Int? {
        guard haystack.count >= needle.count else { return nil }
        var index = haystack.startIndex
        while index <= haystack.endIndex - needle.count {
            if haystack[index..<(index + needle.count)].elementsEqual(needle) { return index }
            index += 1
        }
        return nil
    }
}

/// What the connection has received so far, shared between the event loop and the test.
///
/// Behind a pthread lock, which the thread sanitizer sees: the standard library's `Mutex` is a
/// priority-inheriting futex on Linux, whose contended hand-over happens in the kernel, so the
/// sanitizer took the event loop's appends and the test's reads for a data race.
private final class Inbox: Sendable {
    struct State {
        var bytes: [UInt8] = []
        var received = 0
        var closed = false
    }

    let state = NIOLockedValueBox(State())
}

/// Appends every byte received to the inbox, and marks it closed when the connection ends.
private final class Collector: ChannelInboundHandler, Sendable {
    typealias InboundIn = ByteBuffer

    let inbox: Inbox

    init(inbox: Inbox) {
        self.inbox = inbox
    }

    func channelRead(context: ChannelHandlerContext, data: NIOAny) {
        let buffer = unwrapInboundIn(data)
        inbox.state.withLockedValue {
            $0.bytes += buffer.readableBytesView
            $0.received += buffer.readableBytes
        }
    }

    func channelInactive(context: ChannelHandlerContext) {
        inbox.state.withLockedValue { $0.closed = true }
        context.fireChannelInactive()
    }

    func errorCaught(context: ChannelHandlerContext, error: any Error) {
        // A reset connection: whatever arrived before it stays readable.
        context.close(promise: nil)
    }
}

private extension StringProtocol {
    /// Without leading and trailing spaces and tabs.
    var trimmingSpaces: String {
        var text = Substring(self)
        while let first = text.first, first == " " || first == "\t" { text.removeFirst() }
        while let last = text.last, last == " " || last == "\t" { text.removeLast() }
        return String(text)
    }
}
