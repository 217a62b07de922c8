import ArgumentParser
import Micro

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

    @Option(name: .customLong("role"), help: "A role the user has (admin, say); repeat it for several.")
    var roles: [String] = []

    @Option(help: "The bcrypt cost, 4 to 31.")
    var cost = Password.defaultCost

    func run() async throws {
        try await database.withTable(create: true) { table in
            let password = try PasswordPrompt.read()
            if let problem = PasswordRules().problem(with: password, username: username) {
                throw ValidationError(problem)
            }
            let hash = try Password.hash(password, cost: cost)
            try await table.save(username: username, passwordHash: hash, name: name, roles: roles)
            print("Saved user '\(username.lowercased())' in \(table.place).")
        }
    }
}
