/// What ``MicroCore/Request/checkAccountProof(username:password:code:)`` came to: the person
/// proved to be the user, or which answer was wrong, so that a form can name its field.
public enum AccountProof: Sendable {
    /// The password, and the code where one is due, were right: the stored user.
    case proven(StoredUser)
    /// The password was wrong (or there is no such user): the user's failed sign-in.
    case wrongPassword
    /// The password was right, and the code a further step asks for was wrong.
    case wrongCode
}
