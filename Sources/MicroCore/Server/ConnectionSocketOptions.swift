import Logging
import NIOConcurrencyHelpers
import NIOCore

/// The socket options set on each accepted connection: `TCP_NODELAY`, at the TCP level, so an
/// answer written in pieces is not held back by Nagle's algorithm. (NIO sets it on the
/// listening socket, whose connections inherit it on Linux; setting it on each connection
/// too makes it hold wherever they do not.)
///
/// They are set by hand rather than as NIO's child channel options because a child option
/// that fails closes the connection before anything could log why; here a failure leaves the
/// connection served as it is and is logged once per server, so a system that refuses an
/// option costs speed, never every connection.
final class ConnectionSocketOptions: Sendable {
    /// One option: its NIO name and the value to set.
    struct Option: Sendable {
        let option: ChannelOptions.Types.SocketOption
        let value: SocketOptionValue
        /// How the log names it.
        let name: String
    }

    /// The options a server sets.
    static let standard = [Option(option: .tcpOption(.tcp_nodelay), value: 1, name: "TCP_NODELAY")]

    private let options: [Option]
    private let logger: Logger
    private let failureLogged = NIOLockedValueBox(false)

    /// `options` other than ``standard`` are for tests (an option every system refuses).
    init(logger: Logger, options: [Option] = ConnectionSocketOptions.standard) {
        self.logger = logger
        self.options = options
    }

    /// Sets every option on `channel`, on its event loop; a failure is logged (once) and
    /// the next option is still tried.
    func apply(to channel: any Channel) {
        guard let sync = channel.syncOptions else { return }
        for option in options {
            do {
                try sync.setOption(option.option, value: option.value)
            } catch {
                let first = failureLogged.withLockedValue { logged in
                    defer { logged = true }
                    return !logged
                }
                if first {
                    logger.warning(
                        "Could not set the socket option \(option.name) on a connection (\(error)); connections are served without it. Logged once.")
                }
            }
        }
    }
}
