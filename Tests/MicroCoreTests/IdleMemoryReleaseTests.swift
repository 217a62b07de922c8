import Logging
@testable import MicroCore
import MicroTestSupport
import NIOConcurrencyHelpers
import NIOCore
import NIOEmbedded
import Testing


/// The allocator's free memory goes back to the system once the server has had no connection
/// for a quiet period: once per quiet spell, never while a connection is open, and later when
/// connections keep coming and going.
@Suite struct IdleMemoryReleaseTests {
    private let loop = EmbeddedEventLoop()
    private let releases = NIOLockedValueBox(0)
    private let connections: Connections

    init() {
        let releases = releases
        connections = Connections(
            limit: 10, logger: .quietForTests, quietPeriod: .seconds(2),
            releaseMemory: { releases.withLockedValue { $0 += 1 } })
    }

    private func open() -> EmbeddedChannel {
        let channel = EmbeddedChannel(loop: loop)
        #expect(connections.admit(channel) == .admitted)
        return channel
    }

    private func close(_ channel: EmbeddedChannel) {
        channel.close(promise: nil)
        loop.run()
    }

    private var released: Int { releases.withLockedValue { $0 } }

    @Test func theLastConnectionClosingThenAQuietPeriodReleasesOnce() {
        let first = open()
        let second = open()
        close(first)
        loop.advanceTime(by: .seconds(5))
        #expect(released == 0, "released while a connection was open")

        close(second)
        loop.advanceTime(by: .seconds(1))
        #expect(released == 0, "released before the quiet period ended")
        loop.advanceTime(by: .seconds(1))
        #expect(released == 1)
        loop.advanceTime(by: .seconds(60))
        #expect(released == 1, "released again with nothing served in between")

        // The next quiet spell, after more connections, releases again.
        close(open())
        loop.advanceTime(by: .seconds(2))
        #expect(released == 2)
    }

    @Test func connectionsComingAndGoingPostponeTheRelease() {
        close(open())
        loop.advanceTime(by: .seconds(1))
        // Short connections one after the other: the server is never quiet for the period.
        for _ in 0..<5 {
            close(open())
            loop.advanceTime(by: .seconds(1))
        }
        #expect(released == 0, "released while connections kept coming")
        loop.advanceTime(by: .seconds(2))
        #expect(released == 1)
    }

    @Test func aConnectionOpenWhenTheCheckComesWaitsForItsClose() {
        close(open())
        loop.advanceTime(by: .seconds(1))
        let lingering = open()
        loop.advanceTime(by: .seconds(30))
        #expect(released == 0, "released while a connection was open")
        close(lingering)
        loop.advanceTime(by: .seconds(2))
        #expect(released == 1)
    }
}
