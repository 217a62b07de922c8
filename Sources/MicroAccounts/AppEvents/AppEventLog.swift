/// Where an app's own events are kept: apart from the accounts' security events, kept until the
/// app says otherwise (``DatabaseAppEventLog``'s retention), listed on the audit's app events page.
public protocol AppEventLog: Sendable {
    /// Records `event`.
    func record(_ event: AppEvent) async throws
    /// The newest events, newest first, of `kind` and `subject` when given (exactly), at most
    /// `limit` after skipping the `offset` newest.
    func events(kind: String?, subject: String?, offset: Int, limit: Int) async throws -> [AppEvent]
}
