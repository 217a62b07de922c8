import MicroAuth
import MicroCore

extension Request {
    /// Records an event of the app's own in its record (``Accounts/appEvents``): who did it (the
    /// signed-in user), from which address and browser, all taken from this request, never from
    /// what the client sent; the app names the `kind`, the `subject` and the `detail`.
    ///
    /// ```swift
    /// app.post("/samples/:id/status") { request in
    ///     let user = try request.authorize(role: "staff")
    ///     let sample = try await samples.setStatus(request.params["id"], to: status)
    ///     try await request.recordAppEvent("sample_status", subject: "sample \(sample.code)", detail: "\(old) → \(status)")
    ///     ...
    /// }
    /// ```
    ///
    /// App events are listed on the audit's app events page (`/admin/audit/app`, filtered by
    /// kind and subject, JSON too), not in the user's security activity, and kept until the app
    /// says otherwise. A kind, subject or detail beyond ``AppEventLimits`` is an
    /// ``AppEventError`` and records nothing; a log that cannot be written throws its error.
    public func recordAppEvent(_ kind: String, subject: String, detail: String = "") async throws {
        try AppEventError.check(kind: kind, subject: subject, detail: detail)
        guard let accounts else { throw AppEventError(message: "App events need Accounts: app.use(Accounts(...)).") }
        let event = AppEvent(
            username: currentUser?.username ?? "", kind: kind, subject: subject, detail: detail, at: session.now,
            address: clientAddress ?? "", browser: UserAgentSummary.describe(userAgent))
        try await accounts.settings.appEvents.record(event)
        logger.info(
            "app event",
            metadata: ["kind": "\(kind)", "subject": "\(subject)", "user": "\(event.username)", "address": "\(event.address)", "detail": "\(detail)"])
    }
}
