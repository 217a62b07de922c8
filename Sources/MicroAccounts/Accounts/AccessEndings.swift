import MicroAuth
import MicroCore

/// What keeps a way into an account beside its sessions (API tokens, passkeys), each told when
/// an admin ends a user's whole access (`request.endSessions(of: name, everyWayIn: true)`): the
/// users page's changes make that one call and know none of them, and a way added later cannot be forgotten
/// by one of the changes.
struct AccessEndings: Sendable {
    /// One way in: its name for the log (`API tokens`), and how it ends for a user.
    struct Ending: Sendable {
        let what: String
        let end: @Sendable (Request, String) async throws -> Void
    }

    var list: [Ending] = []
}

extension App {
    /// Adds how `what` (a way in beside sessions: `passkeys`) of a user ends when their whole
    /// access does (`request.endSessions(of: name, everyWayIn: true)`): `end` gets the request
    /// and the user's name. One ending per `what`: a plugin installed again replaces its own
    /// rather than adding a second.
    public func onAccessEnded(_ what: String, _ end: @escaping @Sendable (Request, String) async throws -> Void) {
        updateService(AccessEndings()) { endings in
            endings.list.removeAll { $0.what == what }
            endings.list.append(AccessEndings.Ending(what: what, end: end))
        }
    }
}
