#if OpenIdConnect
/// Which claim names the store's user on a person's first sign-in, before a link exists.
///
/// The first sign-in is the one moment a claim decides who someone is here; later ones follow
/// the (`iss`, `sub`) link only. A claim is safe to link by only where the person cannot edit
/// it: Entra's UPN, Okta's login and Keycloak's username (with *Edit username* off) are the
/// administrators'; a provider whose users rename themselves (GitLab, say) would let anyone
/// rename themselves `admin` and claim that user. There, link by ``email`` alone.
public enum IdentityLinkClaim: String, Sendable, CaseIterable {
    /// `preferred_username`, else `email` when `email_verified` is true.
    case username
    /// `email` when `email_verified` is true; `preferred_username` is never read.
    case email
}
#endif
