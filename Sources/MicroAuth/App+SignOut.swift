import Foundation
import MicroCore

extension App {
    /// Ends every session of `username` begun until now, on every device ("sign out
    /// everywhere", after a lost laptop, say): their next request is signed out.
    ///
    /// ```swift
    /// app.post("/admin/users/:name/sign-out") { request in
    ///     try request.authenticate()
    ///     guard request.currentUser?.username == "admin" else { try request.halt(.forbidden, "Admins only.") }
    ///     app.signOutEverywhere(username: request.params["name"] ?? "")
    ///     return "Signed out."
    /// }
    /// ```
    public func signOutEverywhere(username: String) {
        let settings = settings
        let instant = Int64(settings.clock().timeIntervalSince1970 * 1000)
        let now = instant / 1000
        settings.sessions.revocations.revokeSessions(
            of: Username.key(username), at: instant, until: now + 1 + settings.sessions.lifetimeSeconds, now: now)
    }

    /// Ends every session begun until now, everyone's: all are signed out.
    public func signOutEveryone() {
        let settings = settings
        settings.sessions.revocations.revokeAll(at: Int64(settings.clock().timeIntervalSince1970 * 1000))
    }
}
