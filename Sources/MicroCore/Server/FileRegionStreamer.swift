import NIOCore
import NIOPosix

/// Sends the files the HTTP encoder writes as buffers, a chunk at a time, on a connection whose
/// bytes go through TLS: a file region goes to the socket by sendfile(2), past the encryption,
/// so NIO's TLS handler refuses it. What is written behind a file waits behind it, in order.
/// A chunk is read only once the one before has reached the socket, so a slow client holds
/// at most a chunk of a file in memory, and the send timeout still sees it stop reading.
final class FileRegionStreamer: ChannelOutboundHandler {
    typealias OutboundIn = IOData
    typealias OutboundOut = IOData

    private static let chunkSize = 64 << 10

    private struct FileShrank: Error {}

    private let fileIO: NonBlockingFileIO
    /// The file being sent (what is left of it) and the promise of its write.
    private var current: (region: FileRegion, promise: EventLoopPromise<Void>?)?
    /// What was written (or, with no data, flushed) behind the file, in order.
    private var queued = CircularBuffer<(data: IOData?, promise: EventLoopPromise<Void>?)>()
    /// The bytes held here and not yet handed on: ``HttpHandler`` counts them as unsent, as
    /// it counts NIO's.
    private(set) var heldBytes = 0
    /// Nothing is held: what ``HttpHandler`` waits for before it makes the next answer.
    var isIdle: Bool { current == nil && queued.isEmpty }
    /// A file could not be sent: the connection is closing, and every later write fails.
    private var failure: (any Error)?

    init(fileIO: NonBlockingFileIO) {
        self.fileIO = fileIO
    }

    func write(context: ChannelHandlerContext, data: NIOAny, promise: EventLoopPromise<Void>?) {
        if let failure { return promise?.fail(failure) ?? () }
        let data = unwrapOutboundIn(data)
        if current != nil || !queued.isEmpty {
            heldBytes += data.readableBytes
            queued.append((data, promise))
            return
        }
        switch data {
        case .byteBuffer:
            context.write(wrapOutboundOut(data), promise: promise)
        case .fileRegion(let region):
            heldBytes += region.readableBytes
            current = (region, promise)
            sendChunk(context: context)
        }
    }

    func flush(context: ChannelHandlerContext) {
        if current != nil || !queued.isEmpty {
            queued.append((nil, nil))
        } else {
            context.flush()
        }
    }

    /// Reads the next chunk of the current file and writes it; on to the next once it has
    /// reached the socket, and to what waited behind the file at its end.
    private func sendChunk(context: ChannelHandlerContext) {
        guard let (region, promise) = current else { return }
        let count = min(Self.chunkSize, region.readableBytes)
        guard count > 0 else {
            current = nil
            promise?.succeed()
            passQueued(context: context)
            return
        }
        fileIO.read(
            fileHandle: region.fileHandle, fromOffset: Int64(region.readerIndex), byteCount: count,
            allocator: context.channel.allocator, eventLoop: context.eventLoop
        ).assumeIsolated().flatMap { chunk -> EventLoopFuture<Void> in
            // A file cut short since its size was sent: the answer cannot be completed.
            guard chunk.readableBytes > 0, var current = self.current else {
                return context.eventLoop.makeFailedFuture(FileShrank())
            }
            current.region.moveReaderIndex(forwardBy: chunk.readableBytes)
            self.current = current
            self.heldBytes -= chunk.readableBytes
            return context.writeAndFlush(self.wrapOutboundOut(.byteBuffer(chunk)))
        }.whenComplete { result in
            switch result {
            case .success: self.sendChunk(context: context)
            case .failure(let error): self.fail(error, context: context)
            }
        }
    }

    /// Hands on what waited behind a file, up to the next file; once nothing is left, tells
    /// ``HttpHandler`` that it may answer again. On the loop's next turn: an empty file is
    /// passed at once, from within HttpHandler's writing of its answer.
    private func passQueued(context: ChannelHandlerContext) {
        defer {
            if isIdle {
                context.eventLoop.assumeIsolated().execute {
                    if self.isIdle, self.failure == nil { context.fireChannelWritabilityChanged() }
                }
            }
        }
        while current == nil, let (data, promise) = queued.popFirst() {
            switch data {
            case nil:
                context.flush()
            case .byteBuffer(let buffer):
                heldBytes -= buffer.readableBytes
                context.write(wrapOutboundOut(.byteBuffer(buffer)), promise: promise)
            case .fileRegion(let region):
                current = (region, promise)
                sendChunk(context: context)
            }
        }
    }

    /// The file could not be read or sent (the client is gone, the file shrank): the answer
    /// cannot be finished, so the connection closes, and what waited fails with it.
    private func fail(_ error: any Error, context: ChannelHandlerContext) {
        guard failure == nil else { return }
        failure = error
        current?.promise?.fail(error)
        current = nil
        while let (_, promise) = queued.popFirst() { promise?.fail(error) }
        heldBytes = 0
        context.close(promise: nil)
    }
}
