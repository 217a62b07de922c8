import ArgumentParser
import Foundation
import Micro

/// The sample app's entry point: serve (the default), hash a password, add a user.
@main
struct SampleAppCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "SampleApp",
        abstract: "Micro's sample app: engineering utilities behind sign-in.",
        subcommands: [Serve.self, HashPassword.self, AddUser.self],
        defaultSubcommand: Serve.self)
}

/// Serves the app until Ctrl-C.
struct Serve: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        abstract: "Serve the app (HOST, PORT, MICRO_ENV, MICRO_CREDENTIALS, MICRO_USERS_DB).")

    func run() async throws {
        let users: any UserStore
        do {
            users = try UserSource.fromEnvironment(ProcessInfo.processInfo.environment)
        } catch {
            FileHandle.standardError.write(Data("SampleApp cannot start: \(error)\n".utf8))
            throw ExitCode.failure
        }
        let app = App()
        SampleRoutes.install(in: app, users: users)
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

/// Adds a user to a SQLite users table, or changes their password.
struct AddUser: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "add-user",
        abstract: "Add a user to a SQLite users table (or change their password); the password is read as by hash-password.")

    @Argument(help: "The username (case-insensitive).")
    var username: String

    @Option(help: "The SQLite file (created with its users table when missing).")
    var db: String

    @Option(help: "The name pages show (default: the username capitalized).")
    var name: String?

    @Option(help: "The bcrypt cost, 4 to 31.")
    var cost = Password.defaultCost

    func run() async throws {
        let store = try SqliteUserStore(path: db, create: true)
        let password = try PasswordPrompt.read()
        try store.save(username: username, passwordHash: try Password.hash(password, cost: cost), name: name)
        print("Saved user '\(username.lowercased())' in \(db).")
    }
}
