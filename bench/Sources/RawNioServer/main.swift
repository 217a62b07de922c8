// The baseline: a plain SwiftNIO HTTP/1.1 hello-world server, written as a competent NIO user
// would write it. It parses every request fully (NIO's HTTP decoder, pipelining assistance),
// answers each with 200, Content-Type, Content-Length and a Date cached per second, and honours
// keep-alive. Usage: RawNioServer [port]  (or PORT=...; default 8080), listening on 127.0.0.1.
#if canImport(Glibc)
import Glibc
#elseif canImport(Musl)
import Musl
#else
import Darwin
#endif
import NIOCore
import NIOHTTP1
import NIOPosix

/// `Sun, 06 Nov 1994 08:49:37 GMT` for the current second, recomputed once a second per loop.
struct DateCache {
    private var second = -1
    private var text = ""

    mutating func current() -> String {
        var now = timespec()
        clock_gettime(CLOCK_REALTIME, &now)
        let seconds = Int(now.tv_sec)
        if seconds != second {
            second = seconds
            text = Self.format(seconds)
        }
        return text
    }

    private static let days = ["Sun", "Mon", "Tue", "Wed", "Thu", "Fri", "Sat"]
    private static let months = ["Jan", "Feb", "Mar", "Apr", "May", "Jun", "Jul", "Aug", "Sep", "Oct", "Nov", "Dec"]

    static func format(_ seconds: Int) -> String {
        var time = time_t(seconds)
        var parts = tm()
        gmtime_r(&time, &parts)
        func two(_ value: Int32) -> String { value < 10 ? "0\(value)" : "\(value)" }
        return "\(days[Int(parts.tm_wday)]), \(two(parts.tm_mday)) \(months[Int(parts.tm_mon)]) \(parts.tm_year + 1900) "
            + "\(two(parts.tm_hour)):\(two(parts.tm_min)):\(two(parts.tm_sec)) GMT"
    }
}

final class HelloHandler: ChannelInboundHandler, RemovableChannelHandler {
    typealias InboundIn = HTTPServerRequestPart
    typealias OutboundOut = HTTPServerResponsePart

    private static let bodyText = "Hello, World!"
    private var body: ByteBuffer
    private var date = DateCache()
    private var keepAlive = false
    private var version = HTTPVersion.http1_1

    init() {
        body = ByteBuffer(string: Self.bodyText)
    }

    func channelRead(context: ChannelHandlerContext, data: NIOAny) {
        switch unwrapInboundIn(data) {
        case .head(let head):
            keepAlive = head.isKeepAlive
            version = head.version
        case .body:
            break  // read and dropped: the answer does not depend on it
        case .end:
            var headers = HTTPHeaders()
            headers.reserveCapacity(4)
            headers.add(name: "Content-Type", value: "text/plain; charset=utf-8")
            headers.add(name: "Content-Length", value: String(body.readableBytes))
            headers.add(name: "Date", value: date.current())
            if !keepAlive {
                headers.add(name: "Connection", value: "close")
            } else if version.major == 1, version.minor == 0 {
                headers.add(name: "Connection", value: "keep-alive")
            }
            context.write(wrapOutboundOut(.head(HTTPResponseHead(version: version, status: .ok, headers: headers))), promise: nil)
            context.write(wrapOutboundOut(.body(.byteBuffer(body))), promise: nil)
            if keepAlive {
                context.writeAndFlush(wrapOutboundOut(.end(nil)), promise: nil)
            } else {
                context.writeAndFlush(wrapOutboundOut(.end(nil))).assumeIsolated().whenComplete { _ in
                    context.close(promise: nil)
                }
            }
        }
    }

    func errorCaught(context: ChannelHandlerContext, error: any Error) {
        context.close(promise: nil)
    }
}

let arguments = CommandLine.arguments
let port = (arguments.count > 1 ? Int(arguments[1]) : nil)
    ?? getenv("PORT").flatMap { Int(String(cString: $0)) }
    ?? 8080
let host = getenv("HOST").map { String(cString: $0) } ?? "127.0.0.1"

// Synchronous, waiting on the futures, rather than top-level `await`: an async main ends in
// `dispatchMain()`, where Debian's valgrind (3.19) crashes, and bench/callgrind.sh profiles
// this server too. It serves on its event loops either way.
let channel = try ServerBootstrap(group: MultiThreadedEventLoopGroup.singleton)
    .serverChannelOption(.backlog, value: 256)
    .serverChannelOption(.socketOption(.so_reuseaddr), value: 1)
    .childChannelOption(.tcpOption(.tcp_nodelay), value: 1)
    .childChannelInitializer { channel in
        channel.eventLoop.makeCompletedFuture {
            let pipeline = channel.pipeline.syncOperations
            try pipeline.configureHTTPServerPipeline(withPipeliningAssistance: true)
            try pipeline.addHandler(HelloHandler())
        }
    }
    .bind(host: host, port: port)
    .wait()

print("RawNioServer listening on http://\(host):\(channel.localAddress?.port ?? port) (pid \(getpid()))")
try channel.closeFuture.wait()
