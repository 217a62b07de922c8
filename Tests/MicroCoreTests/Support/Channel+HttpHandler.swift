@testable import MicroCore
import NIOCore

extension Channel {
    /// Runs `body` on the connection's event loop with its ``HttpHandler``, whose state
    /// belongs to that loop; throws when the handler is gone (the connection closed).
    func withHttpHandler<Value: Sendable>(_ body: @escaping @Sendable (HttpHandler) throws -> Value) async throws -> Value {
        try await eventLoop.submit { try body(self.pipeline.syncOperations.handler(type: HttpHandler.self)) }.get()
    }

    /// The bytes NIO holds for the connection that the kernel has not taken yet.
    func unsentBytes() async throws -> Int {
        try await eventLoop.submit { try self.syncOptions?.getOption(ChannelOptions.bufferedWritableBytes) ?? 0 }.get()
    }
}
