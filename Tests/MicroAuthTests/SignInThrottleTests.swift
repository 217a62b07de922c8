import MicroAuth
import MicroCore
import MicroTesting
import Testing

/// The throttle as a state machine, driven by hand-given times.
@Suite struct SignInThrottleTests {
    private func limits(capacity: Int = 100_000) -> SignInThrottle.Limits {
        var limits = SignInThrottle.Limits()
        limits.capacity = capacity
        return limits
    }

    @Test func fiveFailuresRefuseTheNameUntilTheWindowHasPassed() {
        let throttle = SignInThrottle(limits: limits())
        let name = throttle.key(username: "ann")
        for second in 0..<5 {
            #expect(throttle.begin(username: name, address: nil, now: Int64(second)) == .proceed)
            throttle.finish(username: name, address: nil, outcome: .failure, now: Int64(second))
        }
        #expect(throttle.begin(username: name, address: nil, now: 10) == .refuse(retryAfter: 890))
        #expect(throttle.begin(username: name, address: nil, now: 899) == .refuse(retryAfter: 1))
        #expect(throttle.begin(username: name, address: nil, now: 900) == .proceed)
    }

    @Test func checksInFlightHoldTheBudgetAndLaterAttemptsWait() {
        let throttle = SignInThrottle(limits: limits())
        let name = throttle.key(username: "ann")
        for _ in 0..<5 { #expect(throttle.begin(username: name, address: nil, now: 0) == .proceed) }
        #expect(throttle.begin(username: name, address: nil, now: 0) == .wait)
        // A success frees its place and clears the failures: the waiting ones go on.
        throttle.finish(username: name, address: nil, outcome: .success, now: 0)
        #expect(throttle.begin(username: name, address: nil, now: 0) == .proceed)
        // Five failures in flight end as failures: the next attempt is refused, not kept waiting.
        for _ in 0..<5 { throttle.finish(username: name, address: nil, outcome: .failure, now: 1) }
        #expect(throttle.begin(username: name, address: nil, now: 1) == .refuse(retryAfter: 900))
    }

    @Test func anUncheckedAttemptCountsNothing() {
        let throttle = SignInThrottle(limits: limits())
        let name = throttle.key(username: "ann")
        for _ in 0..<20 {
            #expect(throttle.begin(username: name, address: nil, now: 0) == .proceed)
            throttle.finish(username: name, address: nil, outcome: .unchecked, now: 0)
        }
        #expect(throttle.trackedCount.usernames == 0)
    }

    @Test func theAddressLimitCountsEveryName() {
        let throttle = SignInThrottle(limits: limits())
        let address = throttle.key(address: "192.0.2.7")
        for index in 0..<20 {
            let name = throttle.key(username: "name\(index)")
            #expect(throttle.begin(username: name, address: address, now: 0) == .proceed)
            throttle.finish(username: name, address: address, outcome: .failure, now: 0)
        }
        #expect(throttle.begin(username: throttle.key(username: "fresh"), address: address, now: 0) == .refuse(retryAfter: 900))
        // A name refused unread still counts against its address, and is refused there.
        #expect(throttle.begin(username: nil, address: address, now: 0) == .refuse(retryAfter: 900))
    }

    @Test func anIpv6ClientCountsAsItsSlash64() {
        let throttle = SignInThrottle(limits: limits())
        #expect(throttle.key(address: "2001:db8:1:2::1") == throttle.key(address: "2001:db8:1:2:ffff:ffff:ffff:ffff"))
        #expect(throttle.key(address: "2001:db8:1:2::1") != throttle.key(address: "2001:db8:1:3::1"))
        #expect(throttle.key(address: "192.0.2.1") != throttle.key(address: "192.0.2.2"))
    }

    @Test func entriesAreSmallAndFixedWhateverTheName() {
        let throttle = SignInThrottle(limits: limits())
        #expect(MemoryLayout<SignInThrottle.Key>.size == 16)
        let long = String(repeating: "İ", count: 100_000)
        #expect(throttle.key(username: long) == throttle.key(username: long))
        #expect(throttle.key(username: long) != throttle.key(username: long + "x"))
        // Keyed: another throttle digests the same name differently.
        #expect(SignInThrottle().key(username: "ann") != throttle.key(username: "ann"))
    }

    @Test func theTableNeverHoldsMoreThanItsCapacity() {
        let throttle = SignInThrottle(limits: limits(capacity: 100))
        for index in 0..<10_000 {
            let name = throttle.key(username: "user\(index)")
            let address = throttle.key(address: "10.0.\(index / 256).\(index % 256)")
            #expect(throttle.begin(username: name, address: address, now: Int64(index / 100)) == .proceed)
            throttle.finish(username: name, address: address, outcome: .failure, now: Int64(index / 100))
            #expect(throttle.trackedCount.usernames <= 100)
            #expect(throttle.trackedCount.addresses <= 100)
        }
        // The most recent are still counted.
        let recent = throttle.key(username: "user9999")
        for _ in 0..<4 {
            #expect(throttle.begin(username: recent, address: nil, now: 100) == .proceed)
            throttle.finish(username: recent, address: nil, outcome: .failure, now: 100)
        }
        #expect(throttle.begin(username: recent, address: nil, now: 100) == .refuse(retryAfter: 899))
    }

    @Test func passedWindowsAreDroppedByTime() {
        let throttle = SignInThrottle(limits: limits())
        for index in 0..<1000 {
            let name = throttle.key(username: "user\(index)")
            #expect(throttle.begin(username: name, address: throttle.key(address: "10.0.0.\(index % 200)"), now: 0) == .proceed)
            throttle.finish(username: name, address: throttle.key(address: "10.0.0.\(index % 200)"), outcome: .failure, now: 0)
        }
        #expect(throttle.trackedCount == (1000, 200))
        // Later attempts (each does a little of the dropping) empty the table of passed windows.
        let other = throttle.key(username: "other")
        for _ in 0..<200 {
            _ = throttle.begin(username: other, address: nil, now: 900)
            throttle.finish(username: other, address: nil, outcome: .unchecked, now: 900)
        }
        #expect(throttle.trackedCount == (0, 0))
    }

    @Test func anEntryWhoseWindowIsEvictedWhileItsCheckRunsCanStillBeDropped() {
        let throttle = SignInThrottle(limits: limits(capacity: 2))
        let victim = throttle.key(username: "victim")
        #expect(throttle.begin(username: victim, address: nil, now: 0) == .proceed)
        throttle.finish(username: victim, address: nil, outcome: .failure, now: 0)
        // A check of the victim is in flight while two other names fill the table.
        #expect(throttle.begin(username: victim, address: nil, now: 1) == .proceed)
        for name in ["a", "b"] {
            let key = throttle.key(username: name)
            #expect(throttle.begin(username: key, address: nil, now: 1) == .proceed)
            throttle.finish(username: key, address: nil, outcome: .failure, now: 1)
        }
        throttle.finish(username: victim, address: nil, outcome: .failure, now: 2)
        // Its failure began a new window, queued like any other: it passes and goes.
        let other = throttle.key(username: "other")
        for _ in 0..<20 {
            _ = throttle.begin(username: other, address: nil, now: 5000)
            throttle.finish(username: other, address: nil, outcome: .unchecked, now: 5000)
        }
        #expect(throttle.trackedCount.usernames == 0)
    }

    @Test func theSpellingsOfOneNameCountAsOne() {
        let throttle = SignInThrottle(limits: limits())
        #expect(throttle.key(username: "jos\u{E9}") == throttle.key(username: "jose\u{301}"))
    }
}
