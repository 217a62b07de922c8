import Crypto
import Foundation
import MicroCore

/// A digest of a user's name, password hash, roles and whether their password is to be
/// changed. A session keeps the stamp it signed in with; once the store's stamp for that user
/// differs (the password or the roles changed, the password was marked as someone else's) or
/// is gone (the user was removed), the session is over, and the next sign-in brings the new
/// roles and the mark.
///
/// Unkeyed, so that every instance of an app computes the same stamp; it travels only inside
/// the encrypted session.
public struct CredentialStamp: Hashable, Sendable {
    /// 32 hex digits: the first 16 bytes of SHA-256 over the enforced name and the hash.
    public let text: String

    /// The stamp of `username` with `passwordHash`, `roles` and `passwordChangeDue`: a change
    /// of any ends the sessions signed in before it. (Without roles or the mark it is the stamp
    /// of name and hash alone, as before either existed.)
    public init(username: String, passwordHash: String, roles: [String] = [], passwordChangeDue: Bool = false) {
        var input = Data(Username.key(username).utf8)
        input.append(0)
        input.append(contentsOf: passwordHash.utf8)
        for role in roles.sorted() {
            input.append(0)
            input.append(contentsOf: role.utf8)
        }
        // A byte no role name holds: the mark cannot be mistaken for a role.
        if passwordChangeDue { input.append(contentsOf: [1, 1]) }
        text = SHA256.hash(data: input).prefix(16).map { byte in
            let digits = Array("0123456789abcdef".utf8)
            return String(decoding: [digits[Int(byte >> 4)], digits[Int(byte & 15)]], as: UTF8.self)
        }.joined()
    }

    /// The stamp of a stored user.
    public init(_ user: StoredUser) {
        self.init(username: user.user.username, passwordHash: user.passwordHash, roles: user.user.roles, passwordChangeDue: user.passwordChangeDue)
    }

    /// The stamp a store holds for `user`: none when there is no such user or they are
    /// disabled, so that no session of theirs stands.
    public static func current(of user: StoredUser?) -> CredentialStamp? {
        guard let user, !user.isDisabled else { return nil }
        return CredentialStamp(user)
    }

    /// A stamp read back from a session.
    public init(text: String) {
        self.text = text
    }
}
