import Logging
import NIOCore
import NIOHTTP1
import NIOPosix

// Answering: the connection's task runs each request through the app, in order, and writes
// its response.

extension HttpHandler {
    /// Hands a request to the connection's task, which runs its route on this event loop.
    ///
    /// A connection has a task while it has requests to answer: one starts with a request
    /// when none runs, takes the requests that arrive while it answers (pipelined ones, or
    /// one sent while a route suspended), in order, and ends when none is left. It starts
    /// immediately (`Task.immediate`): a route that does not suspend runs inside the read
    /// that brought its request, and its answer is written there, as a hand-written NIO
    /// handler would. An idle keep-alive connection then holds no task, nor the memory its
    /// routes' frames took, and a request touches memory the requests before it on the loop
    /// used (bench/README.md weighs this against one task per connection).
    ///
    /// The task prefers this event loop as its executor (``EventLoopTaskExecutor``), so a route
    /// runs here also after it suspends (a password check, say), and its answer is written
    /// with no hop. So do its child tasks (`async let`, task groups) and the methods of the
    /// app's own actors it calls, unless they have an executor of their own (`@MainActor`).
    /// Work that takes long or blocks goes to a detached task or a thread pool (the article
    /// "Routes, requests and answers").
    ///
    /// Requests on one connection stay in order: the next one waits (`waiting`) until this
    /// answer's end is written, and while the client does not read its answers. Cancelling the
    /// task (the client left, or closed its sending side) cancels the route running and those
    /// after it, which is all this connection will run.
    func respond(to head: HTTPRequestHead, body: ByteBuffer, context: ChannelHandlerContext) {
        if answering {
            // Taken while the task writes the answer before (see `answeredTakingNext`): it
            // runs this one next.
            assert(takenRequest == nil, "two requests taken while the connection's task answered one")
            takenRequest = (head, body)
        } else {
            startConnectionTask(with: (head, body), context: context)
        }
    }

    func startConnectionTask(with first: (HTTPRequestHead, ByteBuffer), context: ChannelHandlerContext) {
        let responder = responder
        let remoteAddress = remoteAddress
        let localPort = localPort
        let eventLoop = context.eventLoop
        // The handler and its context belong to this event loop; NIOLoopBound checks that
        // they are only used on it.
        let connection = NIOLoopBound((self, context), eventLoop: eventLoop)
        answering = true
        // After the client's half-close its routes are cancelled (see
        // `userInboundEventTriggered`): a task started then (for a request that waited from
        // before it) is cancelled before its first route runs.
        let cancelled = inputClosed
        let task = Task.immediate(executorPreference: taskExecutor) {
            if cancelled { withUnsafeCurrentTask { $0?.cancel() } }
            var request: (HTTPRequestHead, ByteBuffer)? = first
            while let (head, body) = request {
                let response = await responder.respond(
                    method: head.method, uri: head.uri, headers: head.headers, body: body, remoteAddress: remoteAddress, localPort: localPort)
                // The task runs on the event loop, where the handler's calls are made at once.
                // Swift calls an executor preference a preference, though; should it ever run
                // elsewhere, the call hops to the loop rather than break NIOLoopBound's check.
                if eventLoop.inEventLoop {
                    let (handler, context) = connection.value
                    request = handler.answeredTakingNext(response, to: head, context: context)
                } else {
                    request = await withUnsafeContinuation { next in
                        eventLoop.execute {
                            let (handler, context) = connection.value
                            next.resume(returning: handler.answeredTakingNext(response, to: head, context: context))
                        }
                    }
                }
            }
        }
        // A route that does not suspend has run, and its answer is written, by now.
        guard answering else { return }
        connectionTask = task
    }

    /// Writes the connection task's answer, then gives it its next request: one taken
    /// meanwhile (a pipelined one, or one that arrived while the route ran), or none, which
    /// ends the task; the next request starts another.
    func answeredTakingNext(
        _ response: consuming Response, to head: HTTPRequestHead, context: ChannelHandlerContext
    ) -> (HTTPRequestHead, ByteBuffer)? {
        answered(response, to: head, context: context)
        if isActive, let next = takenRequest {
            takenRequest = nil
            return next
        }
        takenRequest = nil
        answering = false
        connectionTask = nil
        return nil
    }

    func answered(_ response: consuming Response, to head: HTTPRequestHead, context: ChannelHandlerContext) {
        // The connection's last answer says so: when no request waits and none will come (at
        // shutdown, from a half-closed client, or from one past the waiting limit).
        let last = !waiting.acceptsMore && waiting.isEmpty
        write(response, version: head.version, keepAlive: head.isKeepAlive && !last, context: context)
    }

    func write(_ response: consuming Response, version: HTTPVersion, keepAlive: Bool, context: ChannelHandlerContext) {
        guard isActive else { return }
        if case .file(let file) = response.body {
            let response = copy response
            // Open before the head is written, so a file that vanished since the look-up
            // still gets a proper answer.
            fileIO.openFile(_deprecatedPath: file.path, eventLoop: context.eventLoop).assumeIsolated().whenComplete { result in
                switch result {
                case .success(let (handle, _)):
                    let region = FileRegion(fileHandle: handle, readerIndex: file.offset, endIndex: file.offset + file.length)
                    let written = self.writeParts(response, fileRegion: region, version: version, keepAlive: keepAlive, context: context)
                    // Asked for with a file (see `writeParts`); none when the connection was gone.
                    guard let written else {
                        try? handle.close()
                        return
                    }
                    written.whenComplete { _ in try? handle.close() }
                case .failure:
                    var missing = Response(status: .notFound, contentType: "text/plain; charset=utf-8", body: "Not Found")
                    missing.finalize(for: .GET)
                    self.writeParts(missing, fileRegion: nil, version: version, keepAlive: keepAlive, context: context)
                }
            }
        } else {
            writeParts(response, fileRegion: nil, version: version, keepAlive: keepAlive, context: context)
        }
    }

    /// Writes a response's parts, then takes the next request if one waited. Returns the
    /// answer's last write for a file, which is closed after it. Other answers ask for none: a
    /// promise costs every request an allocation, and NIO's encoder then sends an empty buffer
    /// down the pipeline to complete it in order. Closing the connection after its answers
    /// (its last one, at shutdown, after a half-close) waits for ``answersWritten(context:)``.
    @discardableResult
    func writeParts(
        _ response: consuming Response, fileRegion: FileRegion?, version: HTTPVersion, keepAlive: Bool,
        context: ChannelHandlerContext
    ) -> EventLoopFuture<Void>? {
        guard isActive else { return nil }
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
        let written: EventLoopFuture<Void>?
        if fileRegion != nil {
            written = context.writeAndFlush(wrapOutboundOut(.end(nil)))
        } else {
            written = nil
            context.writeAndFlush(wrapOutboundOut(.end(nil)), promise: nil)
        }
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
            if inputClosed { closeIfAllAnswered(context: context) } else { LingeringClose.after(answersWritten(context: context), context: context) }
        }
        return written
    }

    /// Completes once every answer written so far has reached the socket: at once when NIO
    /// holds none of it; otherwise after an empty write at the socket's end of the pipeline
    /// (below the HTTP encoder), which NIO completes after the writes before it.
    func answersWritten(context: ChannelHandlerContext) -> EventLoopFuture<Void> {
        guard unsentBytes(context: context) > 0 else { return context.eventLoop.makeSucceededVoidFuture() }
        guard let socketEnd = try? context.pipeline.syncOperations.context(handlerType: BackPressureHandler.self) else {
            assertionFailure("no BackPressureHandler at the socket's end of the pipeline (HttpServer adds it)")
            return context.eventLoop.makeSucceededVoidFuture()
        }
        let promise = context.eventLoop.makePromise(of: Void.self)
        socketEnd.writeAndFlush(NIOAny(context.channel.allocator.buffer(capacity: 0)), promise: promise)
        return promise.futureResult
    }

    /// Answers a request the server refuses before the app sees it, then closes the
    /// connection (the rest of the request is read and dropped meanwhile, see ``LingeringClose``).
    func refuse(_ status: HttpStatus, _ message: String, version: HTTPVersion, context: ChannelHandlerContext) {
        cancelTimer()
        state = .closing
        guard isActive else { return }
        let response = Response.refusal(status, message)
        if settings.accessLog { logger.info("refused: \(status.code) \(message)") }
        writeParts(response, fileRegion: nil, version: version, keepAlive: false, context: context)
    }

    func currentDate() -> String {
        let now = Int(NIODeadline.wallClockSeconds)
        if now != dateCache.second { dateCache = (now, HttpDate.format(now)) }
        return dateCache.text
    }
}
