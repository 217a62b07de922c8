import MicroAuth
import MicroCore
import Testing

/// The hash of a user without a password: no password verifies against it, each holder's
/// differs, and the bare marker stores held before is still read.
@Suite struct NoPasswordHashTests {
    @Test func eachNewHashDiffersAndIsOneOfAUserWithoutAPassword() {
        let first = StoredUser.newNoPasswordHash()
        let second = StoredUser.newNoPasswordHash()
        #expect(first != second)
        for hash in [first, second, StoredUser.noPasswordHash] {
            #expect(StoredUser.isNoPasswordHash(hash))
            #expect(StoredUser.isValidStoredHash(hash) && StoredUser.isValidStoredHash("!" + hash))
            #expect(!StoredUser(user: User(username: "eve"), passwordHash: hash).hasPassword)
            #expect(!StoredUser(user: User(username: "eve"), passwordHash: "!" + hash).hasPassword)
            for guess in ["", hash, StoredUser.noPasswordHash, "*"] {
                #expect(!Password.verify(guess, against: hash))
            }
        }
    }

    @Test(arguments: [
        "*no-password:", "*no-password:short", "*no-password:AAAAAAAAAAAAAAAAAAAAAAAA=", "*no-password:AAAAAAAAAAAAAAAAAAAAAA+/",
        "*no-password;AAAAAAAAAAAAAAAAAAAAAAAA", "*no-passwordAAAAAAAAAAAAAAAAAAAAAAAA", "*NO-PASSWORD", "*no-password:AAAAAAAAAAAAAAAAAAAAAAA\u{301}",
    ])
    func aMalformedTailIsNotAHashAStoreMayHold(_ hash: String) {
        #expect(!StoredUser.isNoPasswordHash(hash))
        #expect(!StoredUser.isValidStoredHash(hash))
        #expect(StoredUser(user: User(username: "eve"), passwordHash: hash).hasPassword)
    }

    /// A session of a removed user without a password must not be the stamp of the next user
    /// given their name without one: else the old cookie would open the new account.
    @Test func twoHoldersOfOneNameWithoutAPasswordHaveDifferentStamps() {
        let user = User(username: "bob", roles: ["ops"])
        let old = StoredUser(user: user, passwordHash: StoredUser.newNoPasswordHash())
        let new = StoredUser(user: user, passwordHash: StoredUser.newNoPasswordHash())
        #expect(CredentialStamp(old) != CredentialStamp(new))
    }
}
