import Foundation
import Testing
@testable import MicroOpenIdConnect

/// The table of large ID tokens kept for the provider's sign-out stays within its count and
/// its bytes, however many sign-ins leave one there.
@Suite struct IdTokenHintsTests {
    @Test func theTableKeepsWithinItsBytesAndCountDroppingTheSoonestToExpire() {
        let hints = IdTokenHints(capacity: 100, byteLimit: 40_000, lifetime: 60)
        let token = String(repeating: "t", count: IdTokenHints.maximumLength)
        let handles = (0..<10).compactMap { hints.keep(token, now: 1_000 + Int64($0)) }
        #expect(handles.count == 10)
        // Two tokens of 16 KiB fit in 40,000 bytes: the last two.
        #expect(handles.dropLast(2).allSatisfy { hints.take($0, now: 1_010) == nil })
        #expect(handles.suffix(2).allSatisfy { hints.take($0, now: 1_010) == token })
        #expect(hints.keep(token + "x", now: 1_010) == nil)

        let small = IdTokenHints(capacity: 3, lifetime: 60)
        let kept = (0..<5).compactMap { small.keep(String(repeating: "s", count: 2_000), now: 2_000 + Int64($0)) }
        #expect(kept.prefix(2).allSatisfy { small.take($0, now: 2_005) == nil })
        #expect(kept.suffix(3).allSatisfy { small.take($0, now: 2_005) != nil })
        // Expired: nothing to take.
        let late = small.keep("late", now: 3_000)
        #expect(late.flatMap { small.take($0, now: 3_061) } == nil)
    }
}
