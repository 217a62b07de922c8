import MicroCore

/// A part of the account pages that another module adds: two-factor sign-in (`MicroTwoFactor`'s
/// `TwoFactorSettings`) and passkeys (`MicroPasskeys`' `PasskeySettings`) are two. ``Accounts``
/// installs its features after its own pages, in the order of ``Accounts/features``, so that
/// an app links the C library of a feature only when it uses it.
///
/// `import Micro` gives `Accounts()`, `Accounts(database:)` and `Accounts(stores:)` both of
/// Micro's features; an app that imports `MicroAccounts` names the ones it wants:
///
/// ```swift
/// app.use(Accounts(database: database, features: [TwoFactorSettings()]))
/// ```
public protocol AccountFeature: Sendable {
    /// Adds the feature's pages, sign-in steps, tables and users-page section to `app`, beside
    /// the account pages `accounts` describes (their ``Accounts/prefix`` and
    /// ``Accounts/database``).
    func install(in app: App, accounts: Accounts)
    /// Deletes what the feature keeps for `username` in `database` (the account pages' one):
    /// the user is gone, and a later user of the name must inherit none of it.
    func forget(_ username: String, in database: Database) async throws
    /// Deletes the ways in the feature gave `username` beside their password (a password
    /// reset after an incident leaves none of them): the account event that records their
    /// removal and how many went, or nil for a feature that gives none.
    func endAccess(of username: String, in database: Database) async throws -> EndedAccess?
    /// Moves what the feature keeps for `username` to `newName` in `database`: the user was
    /// renamed, and keeps their second factor, passkeys and the like. Called inside a
    /// transaction of `database` (``/MicroCore/Database/transaction(_:)``), after what an
    /// earlier holder of `newName` left was forgotten: its statements join it when they run
    /// in `database.transaction`; its tables exist (``forget(_:in:)`` made them).
    func carry(_ username: String, to newName: String, in database: Database) async throws
}

extension AccountFeature {
    /// Keeps nothing under a username.
    public func forget(_ username: String, in database: Database) async throws {}

    /// Gives no way in.
    public func endAccess(of username: String, in database: Database) async throws -> EndedAccess? { nil }

    /// Keeps nothing under a username.
    public func carry(_ username: String, to newName: String, in database: Database) async throws {}
}
