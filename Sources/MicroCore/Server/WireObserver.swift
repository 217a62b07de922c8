import NIOCore

/// Placed in front of the HTTP decoder, it sees each read's raw bytes and tells the handler:
/// that bytes arrived (an idle connection's timer becomes the shorter header timer once a
/// request starts), and, before and after the decoder reads them, how many (a body's bytes on
/// the wire, see ``BodyWireCount``). What the handler would drop anyway (the connection is
/// closing, or NIO's decoder stopped after an upgrade request and would keep the bytes) is
/// dropped here, before the decoder.
final class WireObserver: ChannelInboundHandler, RemovableChannelHandler {
    typealias InboundIn = ByteBuffer
    typealias InboundOut = ByteBuffer

    private let handler: HttpHandler
    private var handlerContext: ChannelHandlerContext?

    init(handler: HttpHandler) {
        self.handler = handler
    }

    func channelRead(context: ChannelHandlerContext, data: NIOAny) {
        if handlerContext == nil { handlerContext = try? context.pipeline.syncOperations.context(handler: handler) }
        guard let handlerContext else { return context.fireChannelRead(data) }
        handler.bytesArrived(unwrapInboundIn(data).readableBytes, context: handlerContext)
        if handler.dropsInput { return }
        context.fireChannelRead(data)
        handler.bytesDecoded(context: handlerContext)
    }
}
