import Logging
import NIOCore
import NIOHTTP1
import NIOPosix
import NIOSSL

/// One connection's HTTP/1.1 handler: collects each request (within the limits), answers it
/// through the app, writes the response, and enforces the connection's timeouts.
///
/// Sits after NIO's decoder, and answers pipelined requests in order itself: what arrives
/// while an answer is due waits (``WaitingRequests``), and no more is read until it has been
/// taken. (NIO's `HTTPServerPipelineHandler` stops reading whenever an answer is due; since
/// answers come after the read, that cost two `epoll_ctl` calls per request.) An observer of
/// the raw bytes in front of the decoder tells it when the first bytes of a request arrive,
/// and how many bytes a body takes on the wire (see ``WireObserver``).
///
/// It cannot be removed from the pipeline: its end is `channelInactive`, which cancels its
/// deadline check and its task.
final class HttpHandler: ChannelDuplexHandler {
    typealias InboundIn = HTTPServerRequestPart
    typealias OutboundIn = HTTPServerResponsePart
    typealias OutboundOut = HTTPServerResponsePart

    enum State {
        /// Waiting for a request head.
        case idle
        /// Collecting the body of a request.
        case receiving(HTTPRequestHead, ByteBuffer)
        /// The request went to the app; its response is not written yet.
        case responding
        /// An error response was sent; the connection closes once it is written.
        case closing
    }

    enum Timer {
        case none, idle, header, body
        /// An answer is being sent; the connection is idle once it is (see `send`).
        case sending
    }

    let responder: any HttpResponding
    let settings: ServerSettings
    let logger: Logger
    let fileIO: NonBlockingFileIO
    /// The event loop's task executor, which the connection's task prefers.
    let taskExecutor: EventLoopTaskExecutor
    /// Sends files over TLS (nil without TLS); what it holds is unsent too.
    let fileStreamer: FileRegionStreamer?
    var state = State.idle
    /// A pipelining client's next requests, in order, while an answer is due.
    var waiting: WaitingRequests
    /// NIO asked to read while requests were waiting: passed on once they are all taken.
    var readHeld = false
    /// When the first bytes of a later request arrived while an answer was due: its header
    /// timeout counts from then.
    var nextRequestStarted: NIODeadline?
    /// The client closed its sending side (a half-close): what it sent is answered, then the
    /// connection closes.
    var inputClosed = false
    var timer = Timer.none
    var deadline = NIODeadline.distantFuture
    /// The pending deadline check, if any.
    var timeout: Scheduled<Void>?
    /// While answers are being sent, whatever the connection does meanwhile: when the client
    /// must next have read some, and the bytes still unsent at the last check.
    var send: (deadline: NIODeadline, unsent: Int?)?
    var remoteAddress: String?
    var localPort: Int?
    var isActive = false
    /// The connection's task while it answers: it runs the routes of its requests, one after
    /// the other, on this event loop (see `respond(to:body:context:)`). Set once a route
    /// suspends; a task that ran to its end at once is never kept.
    var connectionTask: Task<Void, Never>?
    /// A task is running this connection's requests.
    var answering = false
    /// Requests started since NIO's last read completed (see `arrived`).
    var requestsThisRead = 0
    /// A `takeWaiting` is scheduled for the loop's next turn.
    var takeScheduled = false
    /// A request for the connection's task, taken while it was writing the answer before:
    /// it runs it next.
    var takenRequest: (HTTPRequestHead, ByteBuffer)?
    var dateCache: (second: Int, text: String) = (0, "")
    /// The bytes the body being received takes on the wire (``BodyWireCount``).
    var wire: BodyWireCount
    /// Counts the requests taken, so a read is only counted toward the body it started in.
    var requestNumber = 0
    /// The request being received asked to switch protocols (`Upgrade`): NIO's decoder reads
    /// nothing after it, so its answer is the connection's last.
    var receivingUpgrade = false
    /// NIO's decoder stopped after an upgrade request: what the client sends later is dropped.
    var decoderStopped = false

    init(responder: any HttpResponding, fileIO: NonBlockingFileIO, taskExecutor: EventLoopTaskExecutor, fileStreamer: FileRegionStreamer? = nil) {
        self.responder = responder
        self.fileStreamer = fileStreamer
        self.settings = responder.serverSettings
        self.logger = responder.logger
        self.fileIO = fileIO
        self.taskExecutor = taskExecutor
        waiting = WaitingRequests(bodyLimit: settings.bodyLimit)
        wire = BodyWireCount(bodyLimit: settings.bodyLimit, framingRunLimit: settings.headerLimit)
    }

    func handlerAdded(context: ChannelHandlerContext) {
        remoteAddress = context.channel.remoteAddress?.ipAddress
        localPort = context.channel.localAddress?.port
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
        // A route that does not heed the cancellation keeps the handler until it returns:
        // the requests that waited behind it are dropped now, not then.
        waiting.removeAll()
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
            refuse(.payloadTooLarge, Response.bodyTooLarge(limit: settings.bodyLimit) + " (counting its chunked framing)", version: head.version, context: context)
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
    func arrived(_ item: WaitingRequests.Item, context: ChannelHandlerContext) {
        switch state {
        case .idle:
            // A route that does not suspend is answered within the read that brought its
            // request, so a pipelining client's requests come here one after the other: the
            // next one starts only while the client reads its answers (see `takeWaiting`), and
            // after as many as may wait the rest of the read waits for the loop's next turn,
            // so one connection's burst cannot keep the loop from the others.
            if waiting.isEmpty, canSend(context: context), requestsThisRead < WaitingRequests.requestLimit {
                handle(item, context: context)
            } else {
                wait(item, context: context)
            }
        case .receiving:
            if waiting.isEmpty { handle(item, context: context) } else { waiting.append(item) }
        case .responding:
            waiting.append(item)
        case .closing:
            break  // what a refused client still sends is read and dropped (``LingeringClose``)
        }
    }

    /// Queues `item` behind the requests that wait. A whole request that waits only for the
    /// client to read its answers is timed by the send timeout, not the header timeout its
    /// first bytes started. What waits for the loop's next turn is taken then, a request cut
    /// by the read's end too (reads stop while requests wait, so its rest comes after).
    func wait(_ item: WaitingRequests.Item, context: ChannelHandlerContext) {
        waiting.append(item)
        guard case .idle = state else { return }
        if case .part(.end) = item, timer == .header || timer == .body { startTimer(.sending, context: context) }
        if canSend(context: context), !takeScheduled {
            takeScheduled = true
            context.eventLoop.assumeIsolated().execute {
                self.takeScheduled = false
                self.requestsThisRead = 0
                self.takeWaiting(context: context)
            }
        }
    }

    func channelReadComplete(context: ChannelHandlerContext) {
        requestsThisRead = 0
        context.fireChannelReadComplete()
    }

    func handle(_ item: WaitingRequests.Item, context: ChannelHandlerContext) {
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
        // (The TLS file streamer says it here too, when it has sent what it held.)
        if canSend(context: context) { takeWaiting(context: context) }
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
            LingeringClose.after(answersWritten(context: context), context: context)
        }
    }

    /// Handles one part of the request being received.
    func take(_ part: HTTPServerRequestPart, context: ChannelHandlerContext) {
        switch part {
        case .head(let head):
            guard case .idle = state else { return }
            cancelTimer()
            nextRequestStarted = nil
            if RequestHeadChecks.headerSize(head) > settings.headerLimit {
                return refuse(.requestHeaderFieldsTooLarge, "The request's header fields are larger than \(settings.headerLimit) bytes.", version: head.version, context: context)
            }
            if let problem = RequestHeadChecks.hostProblem(head) {
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
                return refuse(.payloadTooLarge, Response.bodyTooLarge(limit: settings.bodyLimit), version: head.version, context: context)
            }
            requestNumber &+= 1
            requestsThisRead += 1
            wire.reset()
            receivingUpgrade = RequestHeadChecks.isUpgrade(head)
            state = .receiving(head, context.channel.allocator.buffer(capacity: 0))
            startTimer(.body, context: context)
            // After the state: the write may change the channel's writability, which takes
            // waiting requests only when none is being received.
            if let expect = head.headers.first(name: "Expect"), expect.lowercased() == "100-continue" {
                context.writeAndFlush(wrapOutboundOut(.head(HTTPResponseHead(version: head.version, status: .continue))), promise: nil)
            }
        case .body(var chunk):
            guard case .receiving(let head, var body) = state else { return }
            guard body.readableBytes + chunk.readableBytes <= settings.bodyLimit else {
                return refuse(.payloadTooLarge, Response.bodyTooLarge(limit: settings.bodyLimit), version: head.version, context: context)
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
        if case NIOSSLError.uncleanShutdown? = error as? NIOSSLError {
            // The client closed TCP without TLS's close_notify: NIOSSL says so, then that the
            // input closed, which is answered as any half-close is.
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
    func takeWaiting(context: ChannelHandlerContext) {
        while isActive, !waiting.isEmpty {
            switch state {
            case .responding:
                return
            case .closing:
                waiting.removeAll()
            case .idle, .receiving:
                guard canSend(context: context) else { return }
                handle(waiting.removeFirst(), context: context)
            }
        }
        releaseRead(context: context)
        closeIfAllAnswered(context: context)
    }

    /// Once a half-closed client has every answer it can get, closes the connection when the
    /// last one is written. (A request it left incomplete was answered 400 by then: NIO's
    /// decoder reports it at the half-close.)
    func closeIfAllAnswered(context: ChannelHandlerContext) {
        guard inputClosed, isActive else { return }
        switch state {
        case .responding: return  // its answer is the last (see `answered`)
        case .idle, .receiving: guard waiting.isEmpty else { return }
        case .closing: break
        }
        state = .closing
        cancelTimer()
        answersWritten(context: context).assumeIsolated().whenComplete { _ in
            context.close(promise: nil)
        }
    }

    /// Whether the client reads its answers fast enough for the next to be made: NIO's buffer
    /// is under its high-water mark, and over TLS no file is still being sent (the streamer
    /// holds it outside NIO's count, and each answer waiting behind it would hold a file open).
    func canSend(context: ChannelHandlerContext) -> Bool {
        context.channel.isWritable && fileStreamer?.isIdle != false
    }

    func releaseRead(context: ChannelHandlerContext) {
        guard readHeld, waiting.isEmpty else { return }
        readHeld = false
        context.read()
    }
}
