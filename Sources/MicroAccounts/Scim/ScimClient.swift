/// The provisioning client a request's token proved: named in the audit by every change it makes.
struct ScimClient: Sendable {
    let token: ScimToken

    /// The audit's detail: `by scim okta`.
    var byline: String { "by scim " + token.name }
}
