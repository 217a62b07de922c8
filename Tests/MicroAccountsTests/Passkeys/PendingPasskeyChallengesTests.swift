import MicroAccounts
import MicroPasskeys
import Testing

/// The challenges a session waits for: a few at most, each for a few minutes.
@Suite struct PendingPasskeyChallengesTests {
    @Test func aSessionKeepsAFewAndDropsTheOldestAndTheExpired() {
        var pending = PendingPasskeyChallenges()
        let made = (0..<6).map { PasskeyChallenge(purpose: .signIn, now: 1000 + Int64($0)) }
        for challenge in made { pending.add(challenge) }
        #expect(pending.challenges == Array(made.suffix(PendingPasskeyChallenges.limit)))
        #expect(pending.take(made[0].bytes, for: .signIn, at: 1010) == nil)
        #expect(pending.take(made[5].bytes, for: .signIn, at: 1010) == made[5])
        #expect(pending.take(made[5].bytes, for: .signIn, at: 1010) == nil)
        let later = PasskeyChallenge(purpose: .registration, now: 1000 + PasskeyChallenge.lifetime + 10)
        pending.add(later)
        #expect(pending.challenges == [later])
    }
}
