#if OpenIdConnect
/// A person as an OpenID provider knows them: the issuer and the subject (`iss`, `sub`),
/// the only pair that names them for good (an email or a username can be edited or reused).
public struct ExternalIdentity: Hashable, Sendable, Codable {
    /// The provider's issuer URL, exactly as its tokens carry it.
    public var issuer: String
    /// The provider's stable identifier of the person.
    public var subject: String

    /// The person `subject` at `issuer`.
    public init(issuer: String, subject: String) {
        self.issuer = issuer
        self.subject = subject
    }
}
#endif
