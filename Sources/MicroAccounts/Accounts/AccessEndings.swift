import MicroCore

/// What keeps a way into an account beside its sessions (API tokens, passkeys), each told with
/// the request and the user's name when an admin ends a user's whole access
/// (`request.endSessions(of: name, everyWayIn: true)`): the users page's changes make that one
/// call, so a way added later cannot be forgotten by one of them.
typealias AccessEndings = NamedHooks<@Sendable (Request, String) async throws -> Void>

extension App {
    /// Adds how `what` (a way in beside sessions: `passkeys`) of a user ends when their whole
    /// access does (`request.endSessions(of: name, everyWayIn: true)`): `end` gets the request
    /// and the user's name. One ending per `what`: a plugin installed again replaces its own
    /// rather than adding a second.
    public func onAccessEnded(_ what: String, _ end: @escaping @Sendable (Request, String) async throws -> Void) {
        updateService(AccessEndings()) { $0.set(what, end) }
    }
}
