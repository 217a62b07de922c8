import ArgumentParser
import Micro

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
