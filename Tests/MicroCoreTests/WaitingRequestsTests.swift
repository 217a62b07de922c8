@testable import MicroCore
import MicroTesting
import NIOCore
import NIOHTTP1
import Testing


/// The limit on what a pipelining client may have waiting: whole requests only, up to 100 of
/// them and the body limit's worth of their bodies.
@Suite struct WaitingRequestsTests {
    private static let head = HTTPServerRequestPart.head(HTTPRequestHead(version: .http1_1, method: .POST, uri: "/echo"))

    private static func request(bodyBytes: Int) -> [WaitingRequests.Item] {
        [.part(head), .part(.body(ByteBuffer(repeating: 0x61, count: bodyBytes))), .part(.end(nil))]
    }

    private static func drain(_ waiting: inout WaitingRequests) -> [WaitingRequests.Item] {
        var items: [WaitingRequests.Item] = []
        while !waiting.isEmpty { items.append(waiting.removeFirst()) }
        return items
    }

    @Test func bodiesPastTheLimitDropTheirRequestWhole() {
        var waiting = WaitingRequests(bodyLimit: 1000)
        for item in Self.request(bodyBytes: 400) + Self.request(bodyBytes: 400) { waiting.append(item) }
        #expect(waiting.acceptsMore)
        // The third request's body passes 1000 bytes: its head and body go, and so does its end.
        for item in Self.request(bodyBytes: 400) { waiting.append(item) }
        #expect(!waiting.acceptsMore)
        let kept = Self.drain(&waiting)
        #expect(kept.count == 6)
        guard case .part(.end) = kept.last else {
            Issue.record("the last item kept is not a request's end: \(String(describing: kept.last))")
            return
        }
    }

    @Test func aHundredRequestsMayWaitAndNoMore() {
        var waiting = WaitingRequests(bodyLimit: 1 << 20)
        for _ in 0..<WaitingRequests.requestLimit {
            for item in Self.request(bodyBytes: 0) { waiting.append(item) }
        }
        #expect(waiting.acceptsMore)
        waiting.append(.part(Self.head))
        #expect(!waiting.acceptsMore)
        #expect(Self.drain(&waiting).count == 3 * WaitingRequests.requestLimit)
    }

    @Test func takingRequestsMakesRoomForMore() {
        var waiting = WaitingRequests(bodyLimit: 1000)
        for item in Self.request(bodyBytes: 900) { waiting.append(item) }
        _ = Self.drain(&waiting)
        for item in Self.request(bodyBytes: 900) { waiting.append(item) }
        #expect(waiting.acceptsMore)
    }

    @Test func afterAcceptNoMoreWhatWaitsStaysAndNothingJoins() {
        var waiting = WaitingRequests(bodyLimit: 1000)
        for item in Self.request(bodyBytes: 10) { waiting.append(item) }
        waiting.acceptNoMore()
        for item in Self.request(bodyBytes: 10) { waiting.append(item) }
        #expect(Self.drain(&waiting).count == 3)
    }
}
