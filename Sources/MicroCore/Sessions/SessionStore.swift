/// Where sessions live. The cookie store (the default) keeps the whole session in the
/// encrypted cookie; a server-side store keeps it in the server and the cookie holds its id.
///
/// Stores are called while a request is answered and must be quick; expiry is checked by
/// Micro, not by the store.
public protocol SessionStore: Sendable {
    /// The session a cookie value names (or holds); nil for an unknown, forged or unreadable one.
    func load(cookieValue: String) -> SessionData?
    /// Keeps `data` and returns the cookie value that finds it again.
    func save(_ data: SessionData) throws -> String
    /// Forgets the session with this id (a server-side store can revoke; the cookie store
    /// cannot, and does nothing).
    func destroy(id: String)
}
