import ArgumentParser
import Foundation
import Micro
import MicroPostgres

/// A tool's whole command line in one call: `serve` (the default), Micro's commands
/// (``MicroCommands``) and the tool's own, under the tool's executable name.
///
/// ```swift
/// // Sources/LabTool/main.swift
/// import Micro
/// import MicroCommands
///
/// await CommandLineTool(abstract: "The lab's sample tracker.", database: "lab.db") { app, stores in
///     app.use(Authentication(stores: stores))
///     app.use(Accounts(stores: stores))
///     Samples.install(in: app, database: stores.database)
/// }.main()
/// ```
///
/// `labtool` serves (as `labtool serve` does); `labtool add-user ann --role admin` gives it
/// its first admin; `labtool --help` lists the rest. `serve` opens the stores
/// (`AppStores.open`: `MICRO_DATABASE_URL`, else the file: `MICRO_DATABASE_FILE`, else
/// `database`), has
/// `routes` set the app up, serves until SIGINT or SIGTERM, and closes the stores. The user
/// commands change the same users table, unless told another (`--db`, `--database-url`).
public struct CommandLineTool: Sendable {
    /// What `--help` says the tool is.
    public var abstract: String
    /// The SQLite file, when `MICRO_DATABASE_URL` is unset and ``fileVariable`` names none.
    public var database: String
    /// Where the users are.
    public var users: AppStores.Users
    /// The tool's own commands, beside `serve` and Micro's.
    public var commands: [any ParsableCommand.Type]
    /// Sets the app up over its stores: plugins, routes, settings. An error it throws is why
    /// the tool cannot start, printed as one line.
    public var routes: @Sendable (App, AppStores) async throws -> Void

    /// The command line of a tool that keeps its data in `database` (unless
    /// `MICRO_DATABASE_URL` is set) and its users in `users`.
    public init(
        abstract: String = "", database: String, users: AppStores.Users = .table, commands: [any ParsableCommand.Type] = [],
        routes: @escaping @Sendable (App, AppStores) async throws -> Void
    ) {
        self.abstract = abstract
        self.database = database
        self.users = users
        self.commands = commands
        self.routes = routes
    }

    /// The variable that puts the tool's SQLite file elsewhere than `database` says, for
    /// `serve` and the user commands alike: a server keeps it in the service's state directory
    /// (`MICRO_DATABASE_FILE=/var/lib/labtool/lab.db`), apart from the read-only files beside
    /// the binary.
    public static let fileVariable = "MICRO_DATABASE_FILE"

    static let current = Locked<CommandLineTool?>(nil)

    /// Runs the command `CommandLine.arguments` name: returns when it succeeded; else prints
    /// its message (with the usage, for a mistake in the arguments) and exits with a non-zero
    /// status.
    public func main() async {
        await main(arguments: nil)
    }

    /// Runs the command `arguments` (without the executable) name, as ``main()`` does.
    public func main(arguments: [String]?) async {
        var tool = self
        if let file = ProcessInfo.processInfo.environment[Self.fileVariable], !file.isEmpty { tool.database = file }
        Self.current.withLock { $0 = tool }
        switch users {
        case .table: MicroCommands.databaseFile = tool.database
        case .yaml(let file): MicroCommands.usersFile = file
        }
        await ToolRootCommand.main(arguments)
    }

    /// The app over its opened stores (the tool's, unless `file` and `environment` say
    /// others), set up by ``routes``, as `serve` and `routes` start from; exits with the reason
    /// when it cannot start, closing the stores first.
    func setUpApp(file: String? = nil, environment: [String: String] = ProcessInfo.processInfo.environment) async -> (App, AppStores) {
        let app = App()
        let stores = await app.configure { try await AppStores.open(file: file ?? database, users: users, environment: environment) }
        app.use(stores)
        do {
            try await routes(app, stores)
        } catch {
            await stores.shutdown()
            App.exitCannotStart(error)
        }
        return (app, stores)
    }
}
