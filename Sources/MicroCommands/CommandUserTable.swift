import ArgumentParser
import Micro
import MicroPostgres

/// The users table the user commands change: a SQLite file or a PostgreSQL database.
enum CommandUserTable {
    case sqlite(SqliteUserStore, file: String)
    case postgres(PostgresUserStore, SharedPostgresDatabase)

    /// The table of the PostgreSQL database at `url`; an error names `flag`, where the URL came
    /// from.
    static func postgres(_ url: String, named flag: String) async throws -> CommandUserTable {
        let database: SharedPostgresDatabase
        do {
            database = try await SharedPostgresDatabase.connect(url: url)
        } catch {
            throw CommandFailure("\(flag): \(error.message)")
        }
        do {
            return .postgres(try await PostgresUserStore(database), database)
        } catch {
            database.shutdown()
            throw CommandFailure("\(flag): \(error.message)")
        }
    }

    /// Where, for messages: the file, or the URL without its password.
    var place: String {
        switch self {
        case .sqlite(_, let file): file
        case .postgres(_, let database): "\(database.url)"
        }
    }

    /// Adds the user, or changes their password, name and roles.
    func save(username: String, passwordHash: String, name: String?, roles: [String], email: String?, passwordChangeDue: Bool) async throws {
        switch self {
        case .sqlite(let store, _):
            try store.save(username: username, passwordHash: passwordHash, name: name, roles: roles, email: email, passwordChangeDue: passwordChangeDue)
        case .postgres(let store, _):
            try await store.save(username: username, passwordHash: passwordHash, name: name, roles: roles, email: email, passwordChangeDue: passwordChangeDue)
        }
    }

    /// The user whose address `email` is, in any case; nil for none.
    func username(withEmail email: String) async throws -> String? {
        switch self {
        case .sqlite(let store, _): try await store.withTable("read the users table", guarded: false) { try await $0.username(withEmail: email) }
        case .postgres(let store, _): try await store.withTable("read the users table", guarded: false) { try await $0.username(withEmail: email) }
        }
    }

    /// The enforced names of the users the table holds.
    func usernames() async throws -> [String] {
        switch self {
        case .sqlite(let store, _): try await store.allUsers().map(\.username)
        case .postgres(let store, _): try await store.allUsers().map(\.username)
        }
    }

    /// Throws, as the command's one-line failure, unless the table holds `key` (disabled or not).
    func requireUser(_ key: String) async throws {
        guard try await usernames().contains(key) else { throw noSuchUser(key) }
    }

    /// The failure of a command given a name the table does not hold.
    func noSuchUser(_ key: String) -> CommandFailure {
        CommandFailure("No user '\(key)' in \(place).")
    }

    /// Removes the user; false when there was none of that name.
    func remove(username: String) async throws -> Bool {
        switch self {
        case .sqlite(let store, _): try store.remove(username: username)
        case .postgres(let store, _): try await store.remove(username: username)
        }
    }

    /// Renames the user `username` to `newName`, `carry` moving what is kept under the name
    /// before the table lets another change in (``/MicroAuth/UserTableStore/rename(_:to:carrying:)``):
    /// how it ended.
    func rename(
        _ username: String, to newName: String, carrying carry: @escaping @Sendable (String, String) async throws -> Void
    ) async throws -> UserRename {
        switch self {
        case .sqlite(let store, _): try await store.rename(username, to: newName, carrying: carry)
        case .postgres(let store, _): try await store.rename(username, to: newName, carrying: carry)
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
        case .postgres(_, let database): return try await body(database.database)
        }
    }

    /// Closes the connections: a SQLite file's at once, awaited (none of their threads outlives
    /// the command); PostgreSQL's are told to stop.
    func close() async {
        switch self {
        case .sqlite(let store, _): await store.shutdown()
        case .postgres(_, let database): database.shutdown()
        }
    }
}
