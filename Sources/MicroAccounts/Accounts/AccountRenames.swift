import MicroCore

/// What another module keeps under a username outside ``AccountFeature``s (single sign-on's
/// identity links), each told when the account pages carry a renamed user's leftovers
/// (``Accounts``' `leftoversCarry`) with the old and the new enforced name.
typealias AccountRenames = NamedHooks<@Sendable (String, String) async throws -> Void>

extension App {
    /// Adds how `what` (kept under a username by another module: `identity links`) moves when
    /// a user is renamed: `carry` gets the old and the new enforced name, inside the account
    /// pages' database transaction when they keep one (a store over the same ``/MicroCore/Database``
    /// that runs its statements through `database.run` or `database.transaction` joins it). One
    /// per `what`: a plugin installed again replaces its own.
    ///
    /// ```swift
    /// app.onUserRenamed("notes") { old, new in try await notes.reassign(from: old, to: new) }
    /// ```
    public func onUserRenamed(_ what: String, _ carry: @escaping @Sendable (String, String) async throws -> Void) {
        updateService(AccountRenames()) { $0.set(what, carry) }
    }
}
