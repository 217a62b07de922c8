import Foundation
import MicroAuth
import MicroCore

/// The account pages a signed-in user reaches, turned on with one call: their password, where
/// they are signed in (ending any of those sessions), what happened to their account, and for
/// admins every account's activity. After ``/MicroAuth/Authentication``:
///
/// ```swift
/// app.use(Authentication(users: users))
/// app.use(Accounts(database: database))     // or Accounts() to keep sessions and events in memory
/// ```
///
/// Pages: `GET /account`, `GET`/`POST /account/password`, `GET /account/sessions`,
/// `POST /account/sessions/ID/sign-out`, `POST /account/sessions/sign-out-others`,
/// `GET /account/activity`, `GET /admin/audit` (role ``adminRole``), and with a database the
/// API tokens (`GET`/`POST /account/tokens`, `POST /account/tokens/ID/revoke`; ``apiTokens``),
/// with what its ``features`` add: `import Micro` gives it two-factor sign-in
/// (`/account/two-factor`, `accounts.twoFactor`) and passkeys (`/account/passkeys` and the
/// sign-in by passkey, `accounts.passkeys`); an app that imports `MicroAccounts` alone names
/// the ones it wants (``AccountFeature``). Each
/// answers JSON to a client that asks for it. Each page is a template an app restyles by writing its own of the
/// same name in its views folder (`views/account/sessions.mustache`; the built-in ones are in
/// ``AccountTemplates``); the texts of flashes and refusals are settings here.
public struct Accounts: AppPlugin, Sendable {
    /// Where the pages are.
    public var prefix = "/account"
    /// Where the admin's audit page is (`/admin/audit`).
    public var auditPath = "/admin/audit"
    /// The role that sees the audit.
    public var adminRole = "admin"
    /// Where the admin's users page is (role ``adminRole``): ``UsersTemplates``, ``UsersPageTexts``.
    public var usersPath = "/admin/users"
    /// The texts of the users page.
    public var usersTexts = UsersPageTexts()
    /// Where each user's signed-in sessions are listed.
    public var sessions: any SessionRegistry
    /// Where account events are kept.
    public var activity: any ActivityLog
    /// What a new password must be.
    public var passwordRules = PasswordRules()
    /// The flash after a password change.
    public var passwordChangedMessage = "Your password has been changed."
    /// The refusal of a wrong current password.
    public var wrongPasswordMessage = "That is not your current password."
    /// What a session signed in with a password someone else set is told, on the password
    /// page it is led to (`StoredUser.passwordChangeDue`).
    public var passwordChangeDueMessage = "Your password was set by an administrator: choose your own to go on."
    /// The refusal of the given password as the new one, while a change is due.
    public var givenPasswordMessage = "Choose a password of your own, not the one you were given."
    /// The refusal of a confirmation that differs.
    public var confirmationMessage = "The two new passwords differ."
    /// What the password page says when the users' file cannot be written (credentials.yml).
    public var readOnlyUsersMessage = "These users are managed in credentials.yml: ask its keeper to put in a new hash (\(OperatorCommand.hashPassword()) makes one)."
    /// How long the acting admin's password (and code) confirms the users page's changes once
    /// given, in that session: ten minutes by default.
    public var adminProofLifetime: Duration = .seconds(600)
    /// The flash after ending one session.
    public var sessionEndedMessage = "That session has been signed out."
    /// The flash after ending every other session.
    public var othersEndedMessage = "Your other sessions have been signed out."
    /// Where a set-up link leads (``SetupLink``): its page, outside the signed-in pages.
    public var setupPath = "/password/setup"
    /// Where set-up links are kept: in memory, or with ``init(database:features:)`` in its table.
    public var setupLinks: any SetupLinkStore
    /// How long a set-up link an admin made opens: 72 hours by default.
    public var setupLinkLifetime = Accounts.defaultSetupLinkLifetime
    /// The flash after a set-up link set the password.
    public var setupDoneMessage = "Your password is set."
    /// The page of a set-up link that opens nothing.
    public var setupGoneMessage = "This link has been used or has expired, or a newer one was made. Ask an administrator for a new one."
    /// API tokens (`/account/tokens`, `Authorization: Bearer`): on with ``init(database:features:)``.
    public var apiTokens = ApiTokenSettings()
    /// What other modules add to these pages (two-factor sign-in, passkeys), installed after
    /// them in this order: ``AccountFeature``.
    public var features: [any AccountFeature]
    /// The app's own events (``MicroCore/Request/recordAppEvent(_:subject:detail:)``), listed at
    /// ``auditPath``/app: in memory, or with ``init(database:features:)`` in its table, kept for ever
    /// unless the app gives a ``DatabaseAppEventLog`` a retention or a row limit.
    public var appEvents: any AppEventLog

    /// The pages with sessions and events kept in this process (lost at restart), for a
    /// users file or one instance, with `features`.
    public init(features: [any AccountFeature]) {
        sessions = MemorySessionRegistry()
        activity = MemoryActivityLog()
        appEvents = MemoryAppEventLog()
        setupLinks = MemorySetupLinkStore()
        self.features = features
    }

    /// The pages with sessions and events kept in `database`, shared by every instance that
    /// uses it, with `features`.
    public init(database: Database, features: [any AccountFeature]) {
        sessions = DatabaseSessionRegistry(database)
        activity = DatabaseActivityLog(database)
        appEvents = DatabaseAppEventLog(database)
        apiTokens.store = DatabaseApiTokenStore(database)
        setupLinks = DatabaseSetupLinkStore(database)
        self.features = features
    }

    /// Adds the account pages, the users page, their features (two-factor sign-in, passkeys)
    /// and API tokens over `Authentication`'s sign-in. Its steps, in order, are below;
    /// `app.describe()` lists what each added, where.
    public func install(in app: App) {
        for problem in settingsProblems { app.addProblem(problem) }
        let service = AccountsService(self, logger: app.logger)
        registerServices(service, in: app)
        migrateTables(in: app)
        addUsersPage(service, in: app)
        addAccountPages(service, in: app)
        for feature in features { feature.install(in: app, accounts: self) }
        installApiTokens(in: app, accounts: service)
    }
}
