import NIOCore
import NIOHTTP1

/// The requests a pipelining client sent while an earlier one's answer was due, in order (see
/// ``HttpHandler``), up to a limit: at most ``requestLimit`` requests and the body limit's
/// worth of their bodies. A client past it has its later requests dropped, whole (a request
/// that did not fully fit goes too), and the last one that waited gets the connection's last
/// answer; HTTP/1.1 clients send the unanswered ones again on a new connection.
///
/// Reads stop while requests wait, so the limit matters for a client that sends a burst and
/// closes its sending side: NIO then reads everything the kernel holds for it.
struct WaitingRequests {
    /// A request part, or the decoder's error where the bytes stopped making sense.
    enum Item {
        case part(HTTPServerRequestPart)
        case malformed(HTTPParserError)
    }

    /// How many requests may wait behind the one being answered.
    static let requestLimit = 100

    private let bodyLimit: Int
    private var items = CircularBuffer<Item>()
    private var requests = 0
    private var bodyBytes = 0
    /// False once no more may wait: the client sent more than may (what came after the limit
    /// was dropped), it can send no more (``acceptNoMore()``), or the connection is ending
    /// (``removeAll()``).
    private(set) var acceptsMore = true

    /// - Parameter bodyLimit: How many bytes of request bodies may wait, in all.
    init(bodyLimit: Int) {
        self.bodyLimit = bodyLimit
    }

    var isEmpty: Bool { items.isEmpty }

    /// Adds `item` behind the others, unless the limit was passed.
    mutating func append(_ item: Item) {
        guard acceptsMore else { return }
        count(item, sign: 1)
        items.append(item)
        guard requests > Self.requestLimit || bodyBytes > bodyLimit else { return }
        acceptsMore = false
        // Only whole requests stay (or the error that ended the last one).
        while let last = items.last {
            switch last {
            case .part(.end), .malformed: return
            case .part(.head), .part(.body): count(items.removeLast(), sign: -1)
            }
        }
    }

    /// Takes the first item; there must be one.
    mutating func removeFirst() -> Item {
        let item = items.removeFirst()
        count(item, sign: -1)
        return item
    }

    /// Keeps what waits, and drops what arrives later.
    mutating func acceptNoMore() {
        acceptsMore = false
    }

    /// Drops every item; what arrives later is dropped too.
    mutating func removeAll() {
        items.removeAll()
        requests = 0
        bodyBytes = 0
        acceptsMore = false
    }

    private mutating func count(_ item: Item, sign: Int) {
        switch item {
        case .part(.head): requests += sign
        case .part(.body(let chunk)): bodyBytes += sign * chunk.readableBytes
        case .part(.end), .malformed: break
        }
    }
}
