import MicroCore

/// Whom a sign-in proxy may name: the store's users only, or anyone.
public enum ProxyUsers: String, Sendable {
    /// Only a user the store holds (and has not disabled); anyone else is refused with a `403`.
    case existing
    /// Anyone the proxy names: the store's user of that name when there is one, else a user
    /// made from the proxy's word, with the roles of its groups header.
    case any
}
