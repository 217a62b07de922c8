import MicroAuth
import MicroCore

extension Request {
    /// Whether this request is signed in by an API token (`Authorization: Bearer`): what adds
    /// a way in, or needs the person at a browser, refuses it.
    public var isSignedInByApiToken: Bool { ApiTokenService.isByToken(self) }

    /// The `User-Agent` header as sent, if any, for the account pages' "where from": shown
    /// through an escaping template or summarised (``UserAgentSummary``), never as markup.
    public var userAgent: String? { headers.first(name: "User-Agent") }

    /// Records `event` in `username`'s activity (with this request's address and browser) and
    /// in the log, when the app uses ``Accounts``; else only in the log. For what a plugin does
    /// to an account (a single sign-on identity linked): the audit then shows it beside
    /// Micro's own events.
    ///
    /// ```swift
    /// await request.recordAccountEvent("identity_linked", of: "ann", detail: "sub-123 by password")
    /// ```
    public func recordAccountEvent(_ event: String, of username: String, detail: String) async {
        if let accounts {
            await accounts.record(self, username: username, event: event, detail: detail)
        } else {
            logger.info("account event", metadata: ["event": "\(event)", "user": "\(username)", "detail": "\(detail)"])
        }
    }

    /// The admin viewing a plugin's page beside the users page: a `403` unless the app uses
    /// ``Accounts`` and the signed-in user has its admin role.
    @discardableResult
    public func authorizeUsersPage() throws -> User {
        guard let accounts else { throw HttpError(.notFound, "This app has no users page.") }
        return try authorize(role: accounts.settings.adminRole)
    }

    /// The admin making a change on the users page from a plugin's form (a
    /// ``UsersPageButton``), checked as the page's own changes are: the admin role, and the
    /// admin's recent proof of who they are (the form's `current_password` and `code`, or one
    /// given in the last minutes of this session); a `403` otherwise, and always for an API
    /// token. A route under the users page's path gets this before it runs, from the page's
    /// filter; one elsewhere (a plugin's own page) calls it.
    @discardableResult
    public func authorizeUsersPageChange() async throws -> User {
        guard let accounts else { throw HttpError(.notFound, "This app has no users page.") }
        let admin = try authorize(role: accounts.settings.adminRole)
        if let wrong = try await AdminProof(settings: accounts.settings).check(admin, self) { throw HttpError(.forbidden, wrong.message) }
        return admin
    }

    /// The role of the users page's admins (``Accounts/adminRole``), when the app uses
    /// ``Accounts``: the role a plugin that changes roles keeps on one enabled user at least.
    public var usersPageAdminRole: String? { accounts?.settings.adminRole }

    /// The path of the admin's users page, when the app uses ``Accounts``.
    public var usersPagePath: String? { accounts?.settings.usersPath }
}
