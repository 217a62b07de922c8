import MicroAuth
import MicroCore
import MicroTestSupport
import Testing

/// What a users store keeps in memory: a reading older than a change made meanwhile does not
/// put back what was before it.
@Suite struct UserSummaryTests {
    @Test func aReadingBegunBeforeAChangeDoesNotUndoIt() {
        let old = StoredUser(user: User(username: "ann", roles: ["admin"]), passwordHash: TestHashes.annPassword)
        let new = StoredUser(user: User(username: "ann", roles: ["editor"]), passwordHash: TestHashes.annPassword)
        var summary = UserSummary([old])
        let reading = summary.version(of: "ann")
        summary.set("ann", new)                       // this instance's change, read after it was made
        summary.set("ann", old, readAt: reading)      // a notification's reading, begun before it
        #expect(summary.stamps["ann"] == CredentialStamp.current(of: new))
        // A reading begun after the change is taken.
        let later = summary.version(of: "ann")
        summary.set("ann", StoredUser?.none, readAt: later)
        #expect(summary.stamps["ann"] == nil)
    }
}
