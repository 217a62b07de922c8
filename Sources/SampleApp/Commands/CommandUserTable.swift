import Micro

/// The users table `add-user` and `remove-user` change: a SQLite file or a PostgreSQL database.
enum CommandUserTable {
    case sqlite(SqliteUserStore, file: String)
    case postgres(SharedDatabase)

    /// Where, for messages: the file, or the URL without its password.
    var place: String {
        switch self {
        case .sqlite(_, let file): file
        case .postgres(let shared): "\(shared.database.url)"
        }
    }

    /// Adds the user, or changes their password, name and roles.
    func save(username: String, passwordHash: String, name: String?, roles: [String]) async throws {
        switch self {
        case .sqlite(let store, _): try store.save(username: username, passwordHash: passwordHash, name: name, roles: roles)
        case .postgres(let shared): try await shared.users.save(username: username, passwordHash: passwordHash, name: name, roles: roles)
        }
    }

    /// The enforced names of the users the table holds.
    func usernames() async throws -> [String] {
        switch self {
        case .sqlite(let store, _): try await store.allUsers().map(\.username)
        case .postgres(let shared): try await shared.users.allUsers().map(\.username)
        }
    }

    /// Removes the user; false when there was none of that name.
    func remove(username: String) async throws -> Bool {
        switch self {
        case .sqlite(let store, _): try store.remove(username: username)
        case .postgres(let shared): try await shared.users.remove(username: username)
        }
    }

    /// Runs `body` with the table's database as the account pages see it (their state beside
    /// the users), closed after when opened here.
    func withDatabase<T>(_ body: (Database) async throws -> T) async throws -> T {
        switch self {
        case .sqlite(_, let file):
            let database = try await Database.sqlite(path: file)
            do {
                let result = try await body(database)
                await database.shutdown()
                return result
            } catch {
                await database.shutdown()
                throw error
            }
        case .postgres(let shared): return try await body(shared.database.database)
        }
    }
}
