import Logging
import NIOCore
import NIOHTTP1
import NIOPosix

// Answering: the connection's task runs each request through the app, in order, and writes
// its response.

extension HttpHandler {
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
    func respond(to head: HTTPRequestHead, body: ByteBuffer, context: ChannelHandlerContext) {
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

    func startConnectionTask(context: ChannelHandlerContext) {
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
    func waitForRequest(_ waiter: UnsafeContinuation<(HTTPRequestHead, ByteBuffer)?, Never>) {
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
    /// answer's last write when something waits for it: a file to close after it, or the
    /// connection (its last answer, or a half-closed client's). A keep-alive answer asks
    /// for none: a promise there costs every request an allocation, and NIO's encoder then
    /// sends an empty buffer down the pipeline to complete it in order. Closing later (at
    /// shutdown, or after a half-close) waits for ``answersWritten(context:)`` instead.
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
        if fileRegion != nil || !keepAlive || inputClosed {
            written = context.writeAndFlush(wrapOutboundOut(.end(nil)))
        } else {
            written = nil
            context.writeAndFlush(wrapOutboundOut(.end(nil)), promise: nil)
        }
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
            if inputClosed { closeIfAllAnswered(context: context) } else { LingeringClose.after(answersWritten(context: context), context: context) }
        }
        return written
    }

    /// Completes once every answer written so far has reached the socket: the last answer's
    /// final write if it was asked for; otherwise an empty write at the socket's end of the
    /// pipeline (below the HTTP encoder), which NIO completes after the writes before it.
    func answersWritten(context: ChannelHandlerContext) -> EventLoopFuture<Void> {
        if let lastWrite { return lastWrite }
        let unsent = (try? context.channel.syncOptions?.getOption(ChannelOptions.bufferedWritableBytes)) ?? 0
        guard unsent > 0, let socketEnd = try? context.pipeline.syncOperations.context(handlerType: BackPressureHandler.self)
        else { return context.eventLoop.makeSucceededVoidFuture() }
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
