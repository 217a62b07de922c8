import Logging
import NIOCore
import NIOHTTP1
import NIOPosix

/// One connection's HTTP/1.1 handler: collects each request (within the limits), answers it
/// through the app, writes the response, and enforces the connection's timeouts.
///
/// Sits after NIO's decoder, and answers pipelined requests in order itself: what arrives
/// while an answer is due waits (``WaitingRequests``), and no more is read until it has been
/// taken. (NIO's `HTTPServerPipelineHandler` stops reading whenever an answer is due; since
/// answers come after the read, that cost two `epoll_ctl` calls per request.) An observer of
/// the raw bytes in front of the decoder tells it when the first bytes of a request arrive,
/// and how many bytes a body takes on the wire (see ``WireObserver``).
final class HttpHandler: ChannelDuplexHandler, RemovableChannelHandler {
    typealias InboundIn = HTTPServerRequestPart
    typealias OutboundIn = HTTPServerResponsePart
    typealias OutboundOut = HTTPServerResponsePart

    private enum State {
        /// Waiting for a request head.
        case idle
        /// Collecting the body of a request.
        case receiving(HTTPRequestHead, ByteBuffer)
        /// The request went to the app; its response is not written yet.
        case responding
        /// An error response was sent; the connection closes once it is written.
        case closing
    }

    private enum Timer {
        case none, idle, header, body
        /// An answer is being sent; the connection is idle once it is (see `send`).
        case sending
    }

    private let responder: Responder
    private let settings: Settings
    private let logger: Logger
    private let fileIO: NonBlockingFileIO
    /// The event loop's task executor, which the connection's task prefers.
    private let taskExecutor: EventLoopTaskExecutor
    private var state = State.idle
    /// A pipelining client's next requests, in order, while an answer is due.
    private var waiting: WaitingRequests
    /// NIO asked to read while requests were waiting: passed on once they are all taken.
    private var readHeld = false
    /// When the first bytes of a later request arrived while an answer was due: its header
    /// timeout counts from then.
    private var nextRequestStarted: NIODeadline?
    /// The client closed its sending side (a half-close): what it sent is answered, then the
    /// connection closes.
    private var inputClosed = false
    private var timer = Timer.none
    private var deadline = NIODeadline.distantFuture
    /// The pending deadline check, if any.
    private var timeout: Scheduled<Void>?
    /// While answers are being sent, whatever the connection does meanwhile: when the client
    /// must next have read some, and the bytes still unsent at the last check.
    private var send: (deadline: NIODeadline, unsent: Int?)?
    private var remoteAddress: String?
    /// The last answer's final write: closing after it (at shutdown, after a half-close)
    /// waits for it.
    private var lastWrite: EventLoopFuture<Void>?
    private var isActive = false
    /// The connection's task: it runs the routes of its requests, one after the other, on
    /// this event loop (see `respond(to:body:context:)`).
    private var connectionTask: Task<Void, Never>?
    /// The connection's task, waiting for its next request.
    private var requestWaiter: UnsafeContinuation<(HTTPRequestHead, ByteBuffer)?, Never>?
    /// A request for the connection's task that it has not asked for yet: its first, or one
    /// taken while it was writing the answer before.
    private var takenRequest: (HTTPRequestHead, ByteBuffer)?
    private var dateCache: (second: Int, text: String) = (0, "")
    /// The bytes the body being received takes on the wire (``BodyWireCount``).
    private var wire: BodyWireCount
    /// Counts the requests taken, so a read is only counted toward the body it started in.
    private var requestNumber = 0
    /// The request being received asked to switch protocols (`Upgrade`): NIO's decoder reads
    /// nothing after it, so its answer is the connection's last.
    private var receivingUpgrade = false
    /// NIO's decoder stopped after an upgrade request: what the client sends later is dropped.
    private var decoderStopped = false

    init(responder: Responder, fileIO: NonBlockingFileIO, taskExecutor: EventLoopTaskExecutor) {
        self.responder = responder
        self.settings = responder.settings
        self.logger = responder.logger
        self.fileIO = fileIO
        self.taskExecutor = taskExecutor
        waiting = WaitingRequests(bodyLimit: settings.bodyLimit)
        wire = BodyWireCount(bodyLimit: settings.bodyLimit, framingRunLimit: settings.headerLimit)
    }

    func handlerAdded(context: ChannelHandlerContext) {
        remoteAddress = context.channel.remoteAddress?.ipAddress
        if context.channel.isActive { channelActive(context: context) }
    }

    func channelActive(context: ChannelHandlerContext) {
        guard !isActive else { return }
        isActive = true
        // A new connection has as long as an idle keep-alive one to start a request.
        startTimer(.idle, context: context)
        context.fireChannelActive()
    }

    func channelInactive(context: ChannelHandlerContext) {
        isActive = false
        // The client is gone: a route still working for it is told to stop, and the
        // connection's task ends.
        connectionTask?.cancel()
        connectionTask = nil
        takenRequest = nil
        if let waiter = requestWaiter {
            requestWaiter = nil
            waiter.resume(returning: nil)
        }
        cancelTimer()
        timeout?.cancel()
        timeout = nil
        context.fireChannelInactive()
    }

    /// Whether what the client sends now would be dropped anyway: the connection is closing,
    /// or NIO's decoder stopped reading requests (after an upgrade request). The observer then
    /// drops it before the decoder, which would keep it.
    var dropsInput: Bool {
        if case .closing = state { return true }
        return decoderStopped
    }

    /// Told by the observer in front of the decoder that `count` bytes arrived, before the
    /// decoder reads them.
    func bytesArrived(_ count: Int, context: ChannelHandlerContext) {
        if case .receiving(_, let body) = state {
            wire.readStarts(request: requestNumber, bytes: count, bodyBytes: body.readableBytes)
        }
        switch state {
        case .idle where timer == .idle || timer == .sending:
            // A next request has as long as any to arrive, even while the last answer is sent.
            startTimer(.header, context: context)
        case .responding where nextRequestStarted == nil:
            // A later request, read while this one is answered: its time starts now.
            nextRequestStarted = .now()
        default:
            break
        }
    }

    /// Told by the observer that the decoder has read the bytes of ``bytesArrived(_:context:)``.
    /// A read that began and ended within one request's body counts toward its bytes on the wire.
    func bytesDecoded(context: ChannelHandlerContext) {
        guard let read = wire.takeRead() else { return }
        guard case .receiving(let head, let body) = state, read.request == requestNumber else { return }
        switch wire.count(read, bodyBytes: body.readableBytes) {
        case .within:
            break
        case .overLimit:
            refuse(.payloadTooLarge, Responder.bodyTooLarge(limit: settings.bodyLimit) + " (counting its chunked framing)", version: head.version, context: context)
        case .framingRunTooLong:
            refuse(.badRequest, "The chunked request body has a chunk line (its extensions) or trailer section longer than \(settings.headerLimit) bytes.", version: head.version, context: context)
        }
    }

    func channelRead(context: ChannelHandlerContext, data: NIOAny) {
        arrived(.part(unwrapInboundIn(data)), context: context)
    }

    /// A request part, or the decoder's error, from the client: handled now, or in its turn
    /// after the requests that wait. Once the connection's last answer is known (a refusal, a
    /// shutdown, the waiting limit passed), `waiting` takes no more and it is dropped.
    private func arrived(_ item: WaitingRequests.Item, context: ChannelHandlerContext) {
        switch state {
        case .idle, .receiving:
            if waiting.isEmpty { handle(item, context: context) } else { waiting.append(item) }
        case .responding:
            waiting.append(item)
        case .closing:
            break  // what a refused client still sends is read and dropped (``LingeringClose``)
        }
    }

    private func handle(_ item: WaitingRequests.Item, context: ChannelHandlerContext) {
        switch item {
        case .part(let part): take(part, context: context)
        case .malformed(.headerOverflow):
            refuse(.requestHeaderFieldsTooLarge, "The request's header fields are too large.", version: .http1_1, context: context)
        case .malformed:
            refuse(.badRequest, "Malformed HTTP request.", version: .http1_1, context: context)
        }
    }

    func read(context: ChannelHandlerContext) {
        if waiting.isEmpty { context.read() } else { readHeld = true }
    }

    func channelWritabilityChanged(context: ChannelHandlerContext) {
        // Waiting requests are taken only while the client reads its answers (see `takeWaiting`).
        if context.channel.isWritable { takeWaiting(context: context) }
        context.fireChannelWritabilityChanged()
    }

    func userInboundEventTriggered(context: ChannelHandlerContext, event: Any) {
        if case ChannelEvent.inputClosed = event {
            // The client closed its sending side. It may have left, or it may wait for its
            // answers (a half-close: the server allows them); TCP does not say which. As Go's
            // net/http does, its routes are cancelled (at their next suspension) and what they
            // answer anyway is sent; then the connection closes.
            inputClosed = true
            waiting.acceptNoMore()
            connectionTask?.cancel()
            return closeIfAllAnswered(context: context)
        }
        guard event is ChannelShouldQuiesceEvent else { return context.fireUserInboundEventTriggered(event) }
        // The server is shutting down: a request under way gets its answer, with
        // `Connection: close`; requests that waited behind it are not started (the client may
        // send them again). An idle connection closes once its last answer is sent.
        waiting.removeAll()
        releaseRead(context: context)  // what arrives meanwhile is read and dropped
        if case .idle = state {
            state = .closing
            cancelTimer()
            LingeringClose.after(lastWrite ?? context.eventLoop.makeSucceededVoidFuture(), context: context)
        }
    }

    /// Handles one part of the request being received.
    private func take(_ part: HTTPServerRequestPart, context: ChannelHandlerContext) {
        switch part {
        case .head(let head):
            guard case .idle = state else { return }
            cancelTimer()
            nextRequestStarted = nil
            if Self.headerSize(head) > settings.headerLimit {
                return refuse(.requestHeaderFieldsTooLarge, "The request's header fields are larger than \(settings.headerLimit) bytes.", version: head.version, context: context)
            }
            if let problem = Self.hostProblem(head) {
                return refuse(.badRequest, problem, version: head.version, context: context)
            }
            if head.method == .CONNECT {
                // Micro is no proxy. NIO's decoder reads nothing after a CONNECT (a tunnel would
                // follow), so the refusal closes the connection, and requests pipelined after it
                // get no answer (their client sends them again). NIO's encoder sends the answer
                // to a CONNECT without a body.
                return refuse(.notImplemented, "This server does not support CONNECT: it is not a proxy.", version: head.version, context: context)
            }
            if let length = head.headers.first(name: "Content-Length").flatMap(Int.init), length > settings.bodyLimit {
                return refuse(.payloadTooLarge, Responder.bodyTooLarge(limit: settings.bodyLimit), version: head.version, context: context)
            }
            if let expect = head.headers.first(name: "Expect"), expect.lowercased() == "100-continue" {
                context.writeAndFlush(wrapOutboundOut(.head(HTTPResponseHead(version: head.version, status: .continue))), promise: nil)
            }
            requestNumber &+= 1
            wire.reset()
            receivingUpgrade = Self.isUpgrade(head)
            state = .receiving(head, context.channel.allocator.buffer(capacity: 0))
            startTimer(.body, context: context)
        case .body(var chunk):
            guard case .receiving(let head, var body) = state else { return }
            guard body.readableBytes + chunk.readableBytes <= settings.bodyLimit else {
                return refuse(.payloadTooLarge, Responder.bodyTooLarge(limit: settings.bodyLimit), version: head.version, context: context)
            }
            state = .responding  // lets `body` be uniquely referenced while it grows
            body.writeBuffer(&chunk)
            state = .receiving(head, body)
        case .end:
            guard case .receiving(let head, let body) = state else { return }
            if receivingUpgrade {
                // Micro switches to no other protocol; the request is answered as it is, and
                // since NIO's decoder stops here, that answer is the connection's last.
                decoderStopped = true
                waiting.acceptNoMore()
            }
            cancelTimer()
            state = .responding
            respond(to: head, body: body, context: context)
        }
    }

    func errorCaught(context: ChannelHandlerContext, error: any Error) {
        if case ByteToMessageDecoderError.dataReceivedInErrorState = error {
            // Bytes after a malformed request, which gets (or got) its 400: dropped.
            return
        }
        guard let parserError = error as? HTTPParserError else {
            // I/O errors (a reset connection): nothing to answer.
            context.close(promise: nil)
            return
        }
        // Answered 400 (or 431) after the requests before it.
        arrived(.malformed(parserError), context: context)
    }

    /// Takes the requests that waited while an answer was due, in order, until one of them
    /// needs its own answer first. They are taken only while the client reads its answers
    /// (NIO's write buffer below its high-water mark), so a pipelining client that does not read
    /// cannot make the server pile answers up; the send timeout then closes its connection.
    private func takeWaiting(context: ChannelHandlerContext) {
        while isActive, !waiting.isEmpty {
            switch state {
            case .responding:
                return
            case .closing:
                waiting.removeAll()
            case .idle, .receiving:
                guard context.channel.isWritable else { return }
                handle(waiting.removeFirst(), context: context)
            }
        }
        releaseRead(context: context)
        closeIfAllAnswered(context: context)
    }

    /// Once a half-closed client has every answer it can get, closes the connection when the
    /// last one is written. (A request it left incomplete was answered 400 by then: NIO's
    /// decoder reports it at the half-close.)
    private func closeIfAllAnswered(context: ChannelHandlerContext) {
        guard inputClosed, isActive else { return }
        switch state {
        case .responding: return  // its answer is the last (see `answered`)
        case .idle, .receiving: guard waiting.isEmpty else { return }
        case .closing: break
        }
        state = .closing
        cancelTimer()
        (lastWrite ?? context.eventLoop.makeSucceededVoidFuture()).assumeIsolated().whenComplete { _ in
            context.close(promise: nil)
        }
    }

    private func releaseRead(context: ChannelHandlerContext) {
        guard readHeld, waiting.isEmpty else { return }
        readHeld = false
        context.read()
    }

    // MARK: Answering

    /// Hands a request to the connection's task, which runs its route on this event loop.
    ///
    /// One task per connection, not per request: it runs each request's route in turn, and
    /// waits for the next one in between, so no task (nor the memory its routes' frames take)
    /// is created per request: fewer allocations per request and more requests per second than
    /// a task per request (bench/README.md). The price is the task's memory, kept while a
    /// keep-alive connection is idle.
    ///
    /// The task prefers this event loop as its executor (``EventLoopTaskExecutor``), so a route
    /// runs here also after it suspends (a password check, say), and its answer is written
    /// with no hop. So do its child tasks (`async let`, task groups) and the methods of the
    /// app's own actors it calls, unless they have an executor of their own (`@MainActor`).
    /// Work that takes long or blocks goes to a detached task or a thread pool (README, "More
    /// of the DSL").
    ///
    /// A request is started in the event loop's turn for tasks, right after this read and the
    /// other connections' reads that were ready with it, rather than inside this read, which
    /// serves more requests per second (bench/README.md).
    /// Requests on one connection stay in order: the next one waits (`waiting`) until this
    /// answer's end is written. Cancelling the task (the client left, or closed its sending
    /// side) cancels the route running and those after it, which is all this connection will
    /// run.
    private func respond(to head: HTTPRequestHead, body: ByteBuffer, context: ChannelHandlerContext) {
        if let waiter = requestWaiter {
            requestWaiter = nil
            waiter.resume(returning: (head, body))
        } else {
            // The task's first request, or one taken while it writes the answer before (see
            // `answered`): it asks for it next.
            assert(takenRequest == nil, "two requests taken before the connection's task asked for one")
            takenRequest = (head, body)
            if connectionTask == nil { startConnectionTask(context: context) }
        }
    }

    private func startConnectionTask(context: ChannelHandlerContext) {
        let responder = responder
        let remoteAddress = remoteAddress
        let eventLoop = context.eventLoop
        // The handler and its context belong to this event loop; NIOLoopBound checks that
        // they are only used on it.
        let connection = NIOLoopBound((self, context), eventLoop: eventLoop)
        // The task captures no request: each lives for its turn of the loop only.
        connectionTask = Task(executorPreference: taskExecutor) {
            // The task runs on the event loop, where the handler's calls below are made at
            // once. Swift calls an executor preference a preference, though; should it ever
            // run elsewhere, the calls hop to the loop rather than break NIOLoopBound's check.
            while let (head, body) = await withUnsafeContinuation({ waiter in
                if eventLoop.inEventLoop {
                    connection.value.0.waitForRequest(waiter)
                } else {
                    eventLoop.execute { connection.value.0.waitForRequest(waiter) }
                }
            }) {
                let response = await responder.respond(
                    method: head.method, uri: head.uri, headers: head.headers, body: body, remoteAddress: remoteAddress)
                if eventLoop.inEventLoop {
                    let (handler, context) = connection.value
                    handler.answered(response, to: head, context: context)
                } else {
                    eventLoop.execute {
                        let (handler, context) = connection.value
                        handler.answered(response, to: head, context: context)
                    }
                }
            }
        }
        // A half-close cancels the task (see `userInboundEventTriggered`), and comes after the
        // connection's first request: a request taken later waits behind one whose answer
        // is due, so the task exists by then.
        assert(!inputClosed, "the connection's task started after its client's half-close")
    }

    /// The connection's task asks for its next request: the one taken meanwhile, the next to
    /// arrive, or none (nil ends the task) once the connection is closed.
    private func waitForRequest(_ waiter: UnsafeContinuation<(HTTPRequestHead, ByteBuffer)?, Never>) {
        assert(requestWaiter == nil, "the connection's task asked for two requests at once")
        if !isActive {
            waiter.resume(returning: nil)
        } else if let request = takenRequest {
            takenRequest = nil
            waiter.resume(returning: request)
        } else {
            requestWaiter = waiter
        }
    }

    private func answered(_ response: consuming Response, to head: HTTPRequestHead, context: ChannelHandlerContext) {
        // The connection's last answer says so: when no request waits and none will come (at
        // shutdown, from a half-closed client, or from one past the waiting limit).
        let last = !waiting.acceptsMore && waiting.isEmpty
        write(response, version: head.version, keepAlive: head.isKeepAlive && !last, context: context)
    }

    private func write(_ response: consuming Response, version: HTTPVersion, keepAlive: Bool, context: ChannelHandlerContext) {
        guard isActive else { return }
        if case .file(let file) = response.body {
            let response = copy response
            // Open before the head is written, so a file that vanished since the look-up
            // still gets a proper answer.
            fileIO.openFile(_deprecatedPath: file.path, eventLoop: context.eventLoop).assumeIsolated().whenComplete { result in
                switch result {
                case .success(let (handle, _)):
                    let region = FileRegion(fileHandle: handle, readerIndex: file.offset, endIndex: file.offset + file.length)
                    self.writeParts(response, fileRegion: region, version: version, keepAlive: keepAlive, context: context)
                        .whenComplete { _ in try? handle.close() }
                case .failure:
                    var missing = Response(status: .notFound, contentType: "text/plain; charset=utf-8", body: "Not Found")
                    Responder.finalize(&missing, for: .GET)
                    _ = self.writeParts(missing, fileRegion: nil, version: version, keepAlive: keepAlive, context: context)
                }
            }
        } else {
            _ = writeParts(response, fileRegion: nil, version: version, keepAlive: keepAlive, context: context)
        }
    }

    /// Writes a response's parts, then takes the next request if one waited.
    private func writeParts(
        _ response: consuming Response, fileRegion: FileRegion?, version: HTTPVersion, keepAlive: Bool,
        context: ChannelHandlerContext
    ) -> EventLoopFuture<Void> {
        guard isActive else { return context.eventLoop.makeSucceededVoidFuture() }
        // Moved out, not copied, so the fields below are added in place.
        var headers = response.headers
        response.headers = [:]
        headers.add(name: "Date", value: currentDate())
        if !keepAlive {
            headers.replaceOrAdd(name: "Connection", value: "close")
        } else if version.major == 1, version.minor == 0 {
            headers.replaceOrAdd(name: "Connection", value: "keep-alive")
        }
        context.write(wrapOutboundOut(.head(HTTPResponseHead(version: version, status: response.status, headers: headers))), promise: nil)
        if let fileRegion {
            context.write(wrapOutboundOut(.body(.fileRegion(fileRegion))), promise: nil)
        } else if case .bytes(let buffer) = response.body, buffer.readableBytes > 0 {
            context.write(wrapOutboundOut(.body(.byteBuffer(buffer))), promise: nil)
        }
        // Until the answer is sent, the client must keep reading it; then a keep-alive
        // connection is idle.
        state = keepAlive ? .idle : .closing
        startTimer(.sending, context: context)
        // The client must read its answers: it has the send timeout from now, or from its last
        // read of the ones before.
        if send == nil { send = (.now() + Self.amount(settings.sendTimeout.seconds), nil) }
        let written = context.writeAndFlush(wrapOutboundOut(.end(nil)))
        lastWrite = written
        if keepAlive {
            takeWaiting(context: context)
            if let started = nextRequestStarted, case .idle = state {
                nextRequestStarted = nil
                startTimer(.header, since: started, context: context)
            }
        } else {
            // The connection's last answer: requests that waited behind it go unanswered (a
            // pipelining client sends them again), and what the client still sends is read and
            // dropped until the connection closes.
            waiting.removeAll()
            releaseRead(context: context)
            if inputClosed { closeIfAllAnswered(context: context) } else { LingeringClose.after(written, context: context) }
        }
        return written
    }

    /// Answers a request the server refuses before the app sees it, then closes the
    /// connection (the rest of the request is read and dropped meanwhile, see ``LingeringClose``).
    private func refuse(_ status: HttpStatus, _ message: String, version: HTTPVersion, context: ChannelHandlerContext) {
        cancelTimer()
        state = .closing
        guard isActive else { return }
        let response = Responder.refusal(status, message)
        if settings.accessLog { logger.info("refused: \(status.code) \(message)") }
        _ = writeParts(response, fileRegion: nil, version: version, keepAlive: false, context: context)
    }

    // MARK: Timeouts

    /// Arms the timer of `kind`, counting from `start`. Cheap: it sets a deadline, which a
    /// check running a few times per timeout reads; nothing is scheduled or cancelled per
    /// request.
    private func startTimer(_ kind: Timer, since start: NIODeadline = .now(), context: ChannelHandlerContext) {
        let seconds: Double?
        switch kind {
        case .none:
            timer = .none
            return
        case .idle: seconds = settings.connectionIdleTimeout.seconds
        case .header: seconds = settings.headerTimeout.seconds
        case .body: seconds = settings.bodyTimeout.seconds
        case .sending: seconds = nil  // ends when the answer is sent; `send` times the client
        }
        timer = kind
        deadline = seconds.map { start + Self.amount($0) } ?? .distantFuture
        if timeout == nil { scheduleCheck(context: context) }
    }

    private func cancelTimer() {
        timer = .none
    }

    /// How often the deadline is checked: a quarter of the shortest timeout, so a timeout
    /// fires at most 25% late. (A keep-alive connection's idle time starts at the first check
    /// that finds its last answer sent, so it may close up to twice that late.)
    private var checkInterval: TimeAmount {
        let shortest = min(settings.connectionIdleTimeout, settings.headerTimeout, settings.bodyTimeout, settings.sendTimeout).seconds
        return .nanoseconds(Int64(max(0.01, shortest / 4) * 1e9))
    }

    private func scheduleCheck(context: ChannelHandlerContext) {
        guard isActive else { return }
        timeout = context.eventLoop.assumeIsolated().scheduleTask(in: checkInterval) {
            self.timeout = nil
            self.checkDeadline(context: context)
        }
    }

    private func checkDeadline(context: ChannelHandlerContext) {
        if var send {
            // NIO counts the bytes handed to it and not yet taken by the kernel, files included.
            let unsent = (try? context.channel.syncOptions?.getOption(ChannelOptions.bufferedWritableBytes)) ?? 0
            if unsent == 0 {
                self.send = nil
                // All sent: a keep-alive connection now waits for its next request; a closing
                // one is being closed (``LingeringClose``).
                if timer == .sending {
                    if case .idle = state { startTimer(.idle, context: context) } else { cancelTimer() }
                }
            } else {
                // The client read some since the last check: it gets the full time again.
                if let last = send.unsent, unsent < last { send.deadline = .now() + Self.amount(settings.sendTimeout.seconds) }
                send.unsent = unsent
                self.send = send
                if NIODeadline.now() >= send.deadline { return stalled(context: context) }
            }
        }
        if timer != .none, NIODeadline.now() >= deadline { return timedOut(timer, context: context) }
        if timer != .none || send != nil { scheduleCheck(context: context) }
    }

    /// The client stopped reading its answers: nothing more can reach it.
    private func stalled(context: ChannelHandlerContext) {
        timer = .none
        send = nil
        if settings.accessLog { logger.info("closed: the client read nothing of its answer for \(settings.sendTimeout)") }
        context.close(promise: nil)
    }

    private static func amount(_ seconds: Double) -> TimeAmount {
        .nanoseconds(Int64(seconds * 1e9))
    }

    private func timedOut(_ kind: Timer, context: ChannelHandlerContext) {
        timer = .none
        switch kind {
        case .idle, .none, .sending:
            // (`sending` has no deadline of its own: a stalled client is `stalled(context:)`.)
            context.close(promise: nil)
        case .header, .body:
            refuse(.requestTimeout, "The request took too long to arrive.", version: .http1_1, context: context)
        }
    }

    // MARK: Helpers

    /// Why the request's `Host` header fields are refused, if they are: RFC 9112 (section 3.2)
    /// has a server answer 400 to an HTTP/1.1 request without one, and to any request with more
    /// than one. (An HTTP/1.0 client need not send it.)
    static func hostProblem(_ head: HTTPRequestHead) -> String? {
        var count = 0
        for (name, _) in head.headers where isHost(name) { count += 1 }
        if count > 1 { return "The request has \(count) Host header fields; it must have one." }
        if count == 0, head.version.major > 1 || (head.version.major == 1 && head.version.minor >= 1) {
            return "The request has no Host header field, which HTTP/1.1 requires (RFC 9112, section 3.2)."
        }
        return nil
    }

    /// Whether a header field's name is `Host`, in any case; without allocating.
    private static func isHost(_ name: String) -> Bool {
        let utf8 = name.utf8
        guard utf8.count == 4 else { return false }
        return zip(utf8, "host".utf8).allSatisfy { $0 | 0x20 == $1 }
    }

    /// Whether NIO's decoder takes the request as a switch to another protocol, after which it
    /// reads no more requests: a CONNECT, or an `Upgrade` header with `Connection: upgrade`
    /// (llhttp's rule).
    static func isUpgrade(_ head: HTTPRequestHead) -> Bool {
        if head.method == .CONNECT { return true }
        guard head.headers.contains(name: "Upgrade") else { return false }
        return head.headers[canonicalForm: "Connection"].contains { $0.lowercased() == "upgrade" }
    }

    /// The size of the request line and header fields as sent, near enough (CRLFs included).
    static func headerSize(_ head: HTTPRequestHead) -> Int {
        var size = head.method.rawValue.utf8.count + head.uri.utf8.count + 12
        for (name, value) in head.headers { size += name.utf8.count + value.utf8.count + 4 }
        return size
    }

    private func currentDate() -> String {
        let now = Int(NIODeadline.wallClockSeconds)
        if now != dateCache.second { dateCache = (now, HttpDate.format(now)) }
        return dateCache.text
    }
}

extension NIODeadline {
    /// Seconds since 1970, from the wall clock.
    static var wallClockSeconds: Int64 {
        var now = timespec()
        clock_gettime(CLOCK_REALTIME, &now)
        return Int64(now.tv_sec)
    }
}
