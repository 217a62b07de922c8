import MicroAuth
import MicroCore

/// SCIM 2.0 provisioning (RFC 7643, 7644), for a company's identity provider (Okta, Entra) to
/// add, change, disable and remove the app's users and their roles: on with
/// ``Accounts/scim``, over a users table (SQLite or PostgreSQL) and ``Accounts/init(database:features:)``.
///
/// ```swift
/// var accounts = Accounts(database: database)
/// accounts.scim = ScimProvisioning()           // {base path}/scim/v2
/// app.use(accounts)
/// ```
///
/// The provider authenticates with `Authorization: Bearer` and a token the operator makes with
/// `scim-token` (MicroCommands), kept as a digest in ``DatabaseScimStore``. A SCIM token opens
/// these endpoints only, and a user's API token does not open them. `active: false` disables
/// the user as the users page's "Disable" does: every session ends on every instance, API
/// tokens and passkeys stop, the password and single sign-on refuse them; `active: true`
/// enables them while those stay ended. `DELETE` removes them as the users page does. A user
/// added by SCIM has no password: they sign in by single sign-on, or with a set-up link. Each
/// change is an account event naming the token (`by scim "okta"`).
///
/// The admins stay the users page's to manage unless ``managesAdmins`` is set: a SCIM token
/// neither gives nor takes the admin role (``Accounts/adminRole``), nor changes the address
/// of, disables, enables or removes a user who holds it (`403`).
public struct ScimProvisioning: AccountFeature {
    /// Where the endpoints are, within the app: `/scim/v2`.
    public var path = "/scim/v2"
    /// The largest request body read, in bytes (64 KiB): a larger one is a 413.
    public var bodyLimit = 64 * 1024
    /// The most resources one page of a list holds, whatever `count` asks.
    public var maxCount = 100
    /// Whether SCIM may give and take the admin role and change, disable and remove the users
    /// who hold it (false). Off, a leaked SCIM token cannot make itself an admin, nor take an
    /// admin's account (a new address gets the admin's password reset mail): the provider
    /// manages everyone else, and the admins are managed on the users page.
    public var managesAdmins = false

    /// Provisioning at `/scim/v2`.
    public init() {}

    /// Adds the endpoints, the tokens' table and the check that keeps API tokens off them.
    public func install(in app: App, accounts: Accounts) {
        if path.first != "/" || path.count < 2 || path.last == "/" || path.contains(where: { "*:?#% ".contains($0) }) {
            app.addProblem("ScimProvisioning.path is '\(path)'; it must be a path such as /scim/v2.")
            return
        }
        if bodyLimit < 1024 || maxCount < 1 {
            app.addProblem("ScimProvisioning's bodyLimit must be at least 1024 bytes and its maxCount at least 1.")
            return
        }
        guard let database = accounts.database else {
            app.addProblem("Accounts.scim needs Accounts(database:): its tokens, and the users it provisions, are kept in tables.")
            return
        }
        let store = DatabaseScimStore(database)
        app.addPreparation("migrations: SCIM tokens and groups") { try await database.migrate(DatabaseScimStore.migrations) }
        let service = ScimService(self, store: store, accounts: accounts, logger: app.logger)
        app.register(service)
        // Bearer tokens, no cookie: a browser cannot be made to send one across sites.
        app.skipCsrf(path)
        app.skipCsrf(path + "/*")
        ScimRoutes(service: service).install(in: app)
    }
}
