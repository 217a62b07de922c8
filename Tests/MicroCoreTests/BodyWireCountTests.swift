@testable import MicroCore
import MicroTesting
import Testing


/// The count of a body's bytes on the wire: reads toward the body limit with its allowance, and
/// reads without body data in a row toward the run limit.
@Suite struct BodyWireCountTests {
    /// Counts reads of `bytes` each carrying `data` bytes of body; returns the first verdict
    /// that is not `.within`, and after how many reads.
    private static func feed(
        _ count: inout BodyWireCount, reads: Int, bytes: Int, data: Int
    ) -> (verdict: BodyWireCount.Verdict, reads: Int) {
        var body = 0
        for read in 1...reads {
            count.readStarts(request: 1, bytes: bytes, bodyBytes: body)
            body += data
            let verdict = count.count(count.takeRead()!, bodyBytes: body)
            if verdict != .within { return (verdict, read) }
        }
        return (.within, reads)
    }

    @Test func theAllowanceIsAnEighthOfTheLimitAndAtLeast64KiB() {
        #expect(BodyWireCount(bodyLimit: 1 << 20, framingRunLimit: 100).wireLimit == (1 << 20) + (128 << 10))
        #expect(BodyWireCount(bodyLimit: 1024, framingRunLimit: 100).wireLimit == 1024 + (64 << 10))
        #expect(BodyWireCount(bodyLimit: .max, framingRunLimit: 100).wireLimit == .max)
    }

    @Test func readsPastTheLimitAndAllowanceAreOverIt() {
        var count = BodyWireCount(bodyLimit: 1 << 20, framingRunLimit: 16 << 10)
        // 1 KiB reads with one byte of data each: 1152 of them fit, the next is over.
        let result = Self.feed(&count, reads: 2000, bytes: 1024, data: 1)
        #expect(result.verdict == .overLimit)
        #expect(result.reads == 1153)
    }

    @Test func aBodyAtTheLimitWithModestFramingIsWithin() {
        var count = BodyWireCount(bodyLimit: 1 << 20, framingRunLimit: 16 << 10)
        // 1 MiB of data in 100-byte chunks: 7 bytes of framing for each.
        let result = Self.feed(&count, reads: (1 << 20) / 100, bytes: 107, data: 100)
        #expect(result.verdict == .within)
    }

    @Test func readsWithoutDataInARowPastTheRunLimitAreTooLong() {
        var count = BodyWireCount(bodyLimit: 1 << 20, framingRunLimit: 16 << 10)
        #expect(Self.feed(&count, reads: 16, bytes: 1024, data: 0).verdict == .within)
        #expect(Self.feed(&count, reads: 1, bytes: 1, data: 0).verdict == .framingRunTooLong)

        // Data in between starts the run again.
        var other = BodyWireCount(bodyLimit: 1 << 20, framingRunLimit: 16 << 10)
        for _ in 0..<10 {
            #expect(Self.feed(&other, reads: 15, bytes: 1024, data: 0).verdict == .within)
            #expect(Self.feed(&other, reads: 1, bytes: 1024, data: 1).verdict == .within)
        }
    }

    @Test func aNewRequestStartsFromNothing() {
        var count = BodyWireCount(bodyLimit: 1024, framingRunLimit: 100)
        #expect(Self.feed(&count, reads: 1, bytes: 100, data: 0).verdict == .within)
        count.reset()
        #expect(Self.feed(&count, reads: 1, bytes: 100, data: 0).verdict == .within)
        #expect(count.takeRead() == nil)
    }
}
