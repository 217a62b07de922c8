#if Postgres
import Foundation
import MicroAuth
import MicroCore

/// An app's database and every store Micro keeps in it, from one setting: PostgreSQL when
/// `MICRO_DATABASE_URL` is set (several instances share it), else a SQLite file (one instance).
///
/// ```swift
/// let app = App()
/// let stores = await app.configure { try await AppStores.open(file: "lab.db") }
/// app.use(stores)                              // request.database, shared revocations
/// app.use(Authentication(stores: stores))
/// app.use(Accounts(stores: stores))
/// ```
///
/// The users are in the database's `users` table (``Users-swift.enum/table``, which the users
/// page, two-factor sign-in and API tokens need), or in a YAML file the app names. The first
/// admin of a table comes from the `add-user` command (MicroCommands).
///
/// With PostgreSQL, failed sign-ins and revoked sessions are shared by the instances too; with
/// SQLite they are kept in memory, as one instance needs.
public struct AppStores: AppPlugin, AppDatabaseSource, Sendable {
    /// The app's data, and the account pages' state (sessions, events, tokens, second factors).
    public let database: Database
    /// The users.
    public let users: any UserStore
    /// Where failed sign-ins are counted, when instances share them (PostgreSQL); nil for
    /// memory.
    public let throttleStore: (any SignInThrottleStore)?
    /// The sessions revoked on any instance (PostgreSQL); nil for memory.
    public let revocations: (any SessionRevocations)?
    /// Where the database is, for messages: the file, or the URL without its password.
    public let place: String
    private let closing: @Sendable () async -> Void

    /// The variable that selects PostgreSQL, in every message about it.
    public static let urlVariable = "MICRO_DATABASE_URL"

    /// Opens the PostgreSQL database `MICRO_DATABASE_URL` names, else the SQLite file `file`
    /// (with `create`, made readable by its owner only when missing), and the users `users`
    /// says, with their tables created when missing. A bad URL, an unreachable server, a
    /// missing or unreadable file or a bad users' file is a ``/MicroCore/ConfigurationError`` naming the
    /// variable or the file.
    public static func open(
        file: String, users: Users = .table, create: Bool = true, environment: [String: String] = ProcessInfo.processInfo.environment
    ) async throws(ConfigurationError) -> AppStores {
        if let url = environment[urlVariable], !url.isEmpty { return try await postgres(url, users: users) }
        let store: any UserStore
        switch users {
        case .table: store = try SqliteUserStore(path: file, create: create)
        case .yaml(let yaml):
            store = try YamlUserStore(file: yaml)
            if !create, !FileManager.default.fileExists(atPath: file) { throw ConfigurationError("\(file): no such file") }
        }
        let database: Database
        do throws(ConfigurationError) {
            database = try await Database.sqlite(path: file)
        } catch {
            await (store as? SqliteUserStore)?.shutdown()
            throw error
        }
        return AppStores(database: database, users: store, throttleStore: nil, revocations: nil, place: file) {
            await (store as? SqliteUserStore)?.shutdown()
            await database.shutdown()
        }
    }

    private static func postgres(_ url: String, users: Users) async throws(ConfigurationError) -> AppStores {
        // A users' file is read first: its mistakes are the file's, not the database's.
        var yamlUsers: YamlUserStore?
        if case .yaml(let yaml) = users { yamlUsers = try YamlUserStore(file: yaml) }
        let shared: SharedPostgresDatabase
        do throws(ConfigurationError) {
            shared = try await SharedPostgresDatabase.connect(url: url)
        } catch {
            throw ConfigurationError("\(urlVariable): \(error.message)")
        }
        do throws(ConfigurationError) {
            let store: any UserStore = if let yamlUsers { yamlUsers } else { try await PostgresUserStore(shared) }
            return AppStores(
                database: shared.database, users: store, throttleStore: try await DatabaseSignInThrottleStore(shared.database),
                revocations: try await PostgresSessionRevocations(shared), place: shared.url.description
            ) { shared.shutdown() }
        } catch {
            shared.shutdown()
            throw ConfigurationError("\(urlVariable): \(error.message)")
        }
    }

    private init(
        database: Database, users: any UserStore, throttleStore: (any SignInThrottleStore)?, revocations: (any SessionRevocations)?,
        place: String, closing: @escaping @Sendable () async -> Void
    ) {
        self.database = database
        self.users = users
        self.throttleStore = throttleStore
        self.revocations = revocations
        self.place = place
        self.closing = closing
    }

    /// Gives the app the database (`request.database`, its migrations run at start, as
    /// `app.use(database)` does), and makes its sessions follow the shared revocations, when
    /// there are (PostgreSQL).
    public func install(in app: App) {
        app.use(database)
        if let revocations { app.settings.sessions.revocations = revocations }
    }

    /// Closes the database's connections: SQLite's at once, awaited; PostgreSQL's pool and
    /// listening connection are told to stop. Await it once the app has stopped.
    public func shutdown() async {
        await closing()
    }
}
#endif
