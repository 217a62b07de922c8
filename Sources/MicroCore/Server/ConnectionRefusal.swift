import Logging
import NIOConcurrencyHelpers
import NIOCore
import NIOHTTP1

/// Answers a connection over the limit: `503 Service Unavailable` with `Connection: close`,
/// then a ``LingeringClose``, whatever the client sends meanwhile dropped.
final class ConnectionRefusal: ChannelInboundHandler, RemovableChannelHandler {
    typealias InboundIn = ByteBuffer
    typealias OutboundOut = HTTPServerResponsePart

    private var started = false

    /// Whether the refusal is answered; when not, the connection is closed at once.
    private let answers: Bool

    private init(answers: Bool) {
        self.answers = answers
    }

    /// Sets up `channel` to be refused, with an answer or (`answers` false) without; call
    /// on its event loop.
    static func install(on channel: any Channel, answers: Bool) throws {
        let pipeline = channel.pipeline.syncOperations
        if answers { try pipeline.addHandler(HTTPResponseEncoder()) }
        try pipeline.addHandler(ConnectionRefusal(answers: answers))
    }

    func handlerAdded(context: ChannelHandlerContext) {
        if context.channel.isActive { refuse(context: context) }
    }

    func channelActive(context: ChannelHandlerContext) {
        refuse(context: context)
        context.fireChannelActive()
    }

    func channelRead(context: ChannelHandlerContext, data: NIOAny) {
        // The request is not wanted.
    }

    func errorCaught(context: ChannelHandlerContext, error: any Error) {
        context.close(promise: nil)
    }

    private func refuse(context: ChannelHandlerContext) {
        guard !started else { return }
        started = true
        guard answers else {
            context.close(promise: nil)
            return
        }
        var response = Response.refusal(.serviceUnavailable, "The server is at its connection limit. Please try again in a moment.")
        response.headers.replaceOrAdd(name: "Connection", value: "close")
        response.headers.replaceOrAdd(name: "Retry-After", value: "1")
        response.headers.replaceOrAdd(name: "Date", value: HttpDate.format(Int(NIODeadline.wallClockSeconds)))
        let head = HTTPResponseHead(version: .http1_1, status: .serviceUnavailable, headers: response.headers)
        context.write(wrapOutboundOut(.head(head)), promise: nil)
        if case .bytes(let body) = response.body {
            context.write(wrapOutboundOut(.body(.byteBuffer(body))), promise: nil)
        }
        LingeringClose.after(context.writeAndFlush(wrapOutboundOut(.end(nil))), context: context)
    }
}
