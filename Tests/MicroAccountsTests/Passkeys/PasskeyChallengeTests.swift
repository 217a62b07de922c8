@testable import MicroAccounts
@testable import MicroPasskeys
import Testing

/// A ceremony's challenge: fresh random bytes, good for a few minutes.
@Suite struct PasskeyChallengeTests {
    @Test func aChallengeIsThirtyTwoFreshBytesAndNotTakenLongBeforeItWasMade() {
        let one = PasskeyChallenge(purpose: .signIn, now: 5000)
        let two = PasskeyChallenge(purpose: .signIn, now: 5000)
        #expect(one.bytes.count == 32)
        #expect(one.bytes != two.bytes)
        #expect(one.text.count == 43)
        // Made on an instance whose clock is a little ahead, it is taken; from much further on, not.
        #expect(one.isLive(at: 5000 - PasskeyChallenge.clockSkew))
        #expect(!one.isLive(at: 5000 - PasskeyChallenge.clockSkew - 1))
        #expect(one.isLive(at: 5000 + PasskeyChallenge.lifetime - 1))
        #expect(!one.isLive(at: 5000 + PasskeyChallenge.lifetime))
    }
}
