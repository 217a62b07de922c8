/// The provisioning client a request's token proved: named in the audit by every change it makes.
struct ScimClient: Sendable {
    let token: ScimToken

    /// The audit's detail: `by scim "okta"`, quoted so that whatever stands before it (a new
    /// display name such as `x by alice`) cannot pass for the author.
    var byline: String { "by scim \"" + token.name + "\"" }
}
