// What a user leaves, as `import Micro` counts it: with Micro's two features.
extension AccountLeftovers {
    /// ``/MicroAccounts/AccountLeftovers/forget(_:in:features:now:)`` with Micro's features:
    /// deletes the API tokens, second factor, passkeys and listed sessions kept for `username`,
    /// and marks its activity as an ended account's.
    public static func forget(_ username: String, in database: Database) async throws {
        try await forget(username, in: database, features: Accounts.builtInFeatures)
    }

    /// ``/MicroAccounts/AccountLeftovers/endAccess(of:in:features:now:)`` with Micro's
    /// features: deletes `username`'s API tokens, passkeys and listed sessions; what went.
    public static func endAccess(of username: String, in database: Database) async throws -> [EndedAccess] {
        try await endAccess(of: username, in: database, features: Accounts.builtInFeatures)
    }

    /// ``/MicroAccounts/AccountLeftovers/carry(_:to:in:features:others:now:)`` with Micro's
    /// features: moves `username`'s API tokens, second factor, passkeys, set-up links, activity
    /// and what `others` move to `newName`.
    public static func carry(_ username: String, to newName: String, in database: Database, others: [@Sendable (String, String) async throws -> Void] = []) async throws {
        try await carry(username, to: newName, in: database, features: Accounts.builtInFeatures, others: others)
    }
}
