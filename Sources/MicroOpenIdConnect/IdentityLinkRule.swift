#if OpenIdConnect
/// What makes the first link between a provider's account and a store user who has a
/// password (one made for single sign-on only is always linked by the claim).
///
/// The store's names and the provider's are kept by different people: with ``claim``, the
/// first provider account sending a name the store holds (`admin`) signs in as that user,
/// with no password asked. ``proof`` asks for the user's password first.
public enum IdentityLinkRule: String, Sendable, CaseIterable {
    /// The person proves the store's user (their password, and their code where two-factor is
    /// on) in the same flow; only then is the link made and the person signed in.
    case proof
    /// The claim alone links (``IdentityLinkClaim``): only where the provider's administrators
    /// own it and no user can choose it (Entra's UPN), since whoever the provider sends with a
    /// store user's name becomes that user.
    case claim
}
#endif
