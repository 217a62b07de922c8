import ArgumentParser
import Foundation
import Micro
import MicroPostgres

/// The sample app's entry point: serve (the default), hash a password, add a user.
@main
struct SampleAppCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "SampleApp",
        abstract: "Micro's sample app: engineering utilities behind sign-in.",
        subcommands: [Serve.self, HashPassword.self, AddUser.self, RemoveUser.self],
        defaultSubcommand: Serve.self)
}

/// Serves the app until Ctrl-C.
struct Serve: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        abstract: "Serve the app (HOST, PORT, MICRO_ENV, MICRO_CREDENTIALS, MICRO_USERS_DB, MICRO_DATABASE_URL).")

    func run() async throws {
        let variables = ProcessInfo.processInfo.environment
        let users: any UserStore
        let shared: SharedDatabase?
        do {
            shared = try await SharedDatabase.fromEnvironment(variables)
            users = try shared?.users ?? UserSource.fromEnvironment(variables)
        } catch {
            FileHandle.standardError.write(Data("SampleApp cannot start: \(error)\n".utf8))
            throw ExitCode.failure
        }
        defer { shared?.database.shutdown() }
        let app = App()
        if let shared { app.settings.sessions.revocations = shared.revocations }
        SampleRoutes.install(in: app, users: users, throttleStore: shared?.throttle)
        try await app.run()
    }
}

/// Where the users come from: `MICRO_USERS_DB` (a SQLite file), else `MICRO_CREDENTIALS`
/// (a YAML file), else `credentials.yml`.
enum UserSource {
    static func fromEnvironment(_ variables: [String: String]) throws -> any UserStore {
        if let database = variables["MICRO_USERS_DB"], !database.isEmpty {
            return try SqliteUserStore(path: database)
        }
        return try YamlUserStore(file: variables["MICRO_CREDENTIALS"].flatMap { $0.isEmpty ? nil : $0 } ?? "credentials.yml")
    }
}

/// Prints the bcrypt hash of a password, for credentials.yml.
struct HashPassword: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "hash-password",
        abstract: "Read a password (not echoed; or from stdin when piped) and print its bcrypt hash.")

    @Option(help: "The bcrypt cost, 4 to 31.")
    var cost = Password.defaultCost

    func run() async throws {
        let password = try PasswordPrompt.read()
        print(try Password.hash(password, cost: cost))
    }
}

/// Where `add-user` and `remove-user` keep users: `--db FILE` (SQLite) or `--database-url URL`
/// (PostgreSQL).
struct UserDatabaseOptions: ParsableArguments {
    @Option(help: "The SQLite file (add-user creates it with its users table when missing).")
    var db: String?

    @Option(help: "A PostgreSQL database, postgres://user:password@host:port/database (the users table is created when missing).")
    var databaseUrl: String?

    func validate() throws {
        guard (db == nil) != (databaseUrl == nil) else {
            throw ValidationError("Give either --db FILE (SQLite) or --database-url URL (PostgreSQL).")
        }
    }

    /// Where, for messages: the file, or the URL without its password.
    func place(_ shared: SharedDatabase?) -> String { shared.map { "\($0.database.url)" } ?? db ?? "" }

    func openShared() async throws -> SharedDatabase? {
        guard let databaseUrl else { return nil }
        do {
            return try await SharedDatabase.connect(databaseUrl)
        } catch {
            throw ValidationError("--database-url: \(error.message.replacingOccurrences(of: SharedDatabase.variable + ": ", with: ""))")
        }
    }
}

/// Adds a user to a users table (SQLite or PostgreSQL), or changes their password.
struct AddUser: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "add-user",
        abstract: "Add a user to a users table, SQLite or PostgreSQL (or change their password); the password is read as by hash-password.")

    @Argument(help: "The username (case-insensitive).")
    var username: String

    @OptionGroup var database: UserDatabaseOptions

    @Option(help: "The name pages show (default: the username capitalized).")
    var name: String?

    @Option(help: "The bcrypt cost, 4 to 31.")
    var cost = Password.defaultCost

    func run() async throws {
        let shared = try await database.openShared()
        defer { shared?.database.shutdown() }
        let sqlite = try database.db.map { try SqliteUserStore(path: $0, create: true) }
        let password = try PasswordPrompt.read()
        let hash = try Password.hash(password, cost: cost)
        if let shared {
            try await shared.users.save(username: username, passwordHash: hash, name: name)
        } else {
            try sqlite?.save(username: username, passwordHash: hash, name: name)
        }
        print("Saved user '\(username.lowercased())' in \(database.place(shared)).")
    }
}

/// Removes a user from a users table (SQLite or PostgreSQL); their sessions end.
struct RemoveUser: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "remove-user",
        abstract: "Remove a user from a users table, SQLite or PostgreSQL; their sessions end on their next request.")

    @Argument(help: "The username (case-insensitive).")
    var username: String

    @OptionGroup var database: UserDatabaseOptions

    func run() async throws {
        let shared = try await database.openShared()
        defer { shared?.database.shutdown() }
        let removed: Bool
        if let shared {
            removed = try await shared.users.remove(username: username)
        } else {
            removed = try SqliteUserStore(path: database.db ?? "").remove(username: username)
        }
        guard removed else {
            FileHandle.standardError.write(Data("No user '\(username.lowercased())' in \(database.place(shared)).\n".utf8))
            throw ExitCode.failure
        }
        print("Removed user '\(username.lowercased())' from \(database.place(shared)).")
    }
}
