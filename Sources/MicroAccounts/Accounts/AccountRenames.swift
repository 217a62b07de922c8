import MicroAuth
import MicroCore

/// What another module keeps under a username outside ``AccountFeature``s (single sign-on's
/// identity links), each told when the account pages carry a renamed user's leftovers
/// (``Accounts``' `carryLeftovers`): the account pages know none of them, and a module added
/// later registers its own.
struct AccountRenames: Sendable {
    /// One thing kept under a name: its name for the log (`identity links`), and how it moves.
    struct Renaming: Sendable {
        let what: String
        let carry: @Sendable (String, String) async throws -> Void
    }

    var list: [Renaming] = []
}

extension App {
    /// Adds how `what` (kept under a username by another module: `identity links`) moves when
    /// a user is renamed: `carry` gets the old and the new enforced name, inside the account
    /// pages' database transaction when they keep one (a store over the same ``/MicroCore/Database``
    /// that runs its statements in `database.transaction` joins it). One per `what`: a plugin
    /// installed again replaces its own.
    ///
    /// ```swift
    /// app.onUserRenamed("notes") { old, new in try await notes.reassign(from: old, to: new) }
    /// ```
    public func onUserRenamed(_ what: String, _ carry: @escaping @Sendable (String, String) async throws -> Void) {
        updateService(AccountRenames()) { renames in
            renames.list.removeAll { $0.what == what }
            renames.list.append(AccountRenames.Renaming(what: what, carry: carry))
        }
    }
}
