import Foundation
import Logging
import NIOCore
import NIOPosix
import SQLiteKit

/// A SQLite file through sqlite-kit: one connection (SQLite writes one at a time anyway), its
/// statements run on NIO's thread pool, off the event loops.
///
/// Faults heal by themselves: a statement that finds the file locked by another writer waits
/// for it up to `busyTimeout`, then fails (a 503); one that finds the connection broken (the
/// file corrupt, unreadable) closes it, and the next statement opens the file afresh, as does
/// one that finds another file put in its place (a restored backup). A file moved away is
/// reported missing, never created again. A read-only file works for reading.
public final class SqliteBackend: DatabaseBackend {
    /// The file.
    public let path: String
    /// How long a statement waits for another connection's lock before it gives up (a 503).
    public let busyTimeout: Duration
    /// What the file is, in messages: `database`, `users database`.
    let subject: String
    private let state = Locked(State())
    private let loop: any EventLoop
    /// Sessions (transactions) take turns: SQLite lets one connection write at a time anyway.
    /// Statements on the shared connection wait here too while a session is open.
    let sessionTurns = AsyncTurns()
    /// The thread sessions' statements run on, started with the first session. Not the shared
    /// pool's, whose threads may all be waiting for the session's lock (statements of other
    /// requests, inside SQLite's busy handler): the session would then have no thread to finish
    /// on, and none would go on.
    let sessionThread = Locked<NIOThreadPool?>(nil)
    /// How many sessions are open (at most one, as they take turns).
    let openSessions = Locked(0)

    /// The connection open now, to the file it opened (watched, when the file can be opened for
    /// reading), and how many times the file was opened.
    private struct State {
        var connection: SQLiteConnection?
        var identity: FileIdentity?
        var watch: FileWatch?
        var generation = 0
    }

    /// Opens `path`, creating it when missing with `create` (readable and writable by its owner
    /// only, whatever the umask: it may hold what the app keeps private), else reporting it
    /// missing. A file group or others may open is logged as a warning naming the fix and what
    /// the file is `holding`.
    public static func open(
        path: String, create: Bool = true, busyTimeout: Duration = .seconds(2)
    ) async throws(ConfigurationError) -> SqliteBackend {
        try await open(path: path, create: create, busyTimeout: busyTimeout, subject: "database", holding: "the app's data")
    }

    package static func open(
        path: String, create: Bool, busyTimeout: Duration, subject: String, holding: String
    ) async throws(ConfigurationError) -> SqliteBackend {
        if FileIdentity(path) == nil {
            guard create else { throw ConfigurationError("\(path): no such \(subject).") }
            // Made 0600 before SQLite opens it, which would create it 0644 (less the umask).
            do throws(PrivateFileError) {
                if let descriptor = try PrivateFile.create(path) { close(descriptor) }
            } catch {
                throw ConfigurationError("\(path): cannot create the \(subject) (\(error.reason)).")
            }
        } else if let warning = PrivateFile.warning(for: path, holding: holding) {
            Logger(label: "micro").warning("\(warning)")
        }
        let backend = SqliteBackend(path: path, busyTimeout: busyTimeout, subject: subject)
        do {
            _ = try await backend.connect()
        } catch {
            throw ConfigurationError(backend.words(error, doing: "read the \(subject)").description)
        }
        return backend
    }

    private init(path: String, busyTimeout: Duration, subject: String) {
        self.path = path
        self.busyTimeout = busyTimeout
        self.subject = subject
        loop = MultiThreadedEventLoopGroup.singleton.any()
    }

    deinit {
        // SQLiteNIO requires a connection closed before it goes; the close holds it till then.
        _ = state.withLock { $0.connection }?.close()
        sessionThread.withLock { $0 }?.shutdownGracefully { _ in }
    }

    public var description: String { path }

    /// The statements, each on the connection to the file now at ``path``.
    public var sql: any SQLDatabase { SqliteFileSqlDatabase(backend: self, pinned: nil) }

    /// A connection to the file now at ``path``, opened when there is none (after a failure)
    /// or when another file took the path; with the count of openings, which changes when the
    /// file was opened afresh.
    package func connect() async throws -> (connection: SQLiteConnection, generation: Int) {
        // Asked before every statement, so mostly answered by the open file, without a look-up
        // of the path.
        let watched = state.withLock { state in state.watch.flatMap { watch in state.connection.map { ($0, state.generation, watch) } } }
        if let (connection, generation, watch) = watched, watch.isStill(at: path) { return (connection, generation) }
        guard let identity = FileIdentity(path) else { throw missing }
        let current = state.withLock { state in state.identity == identity ? state.connection.map { ($0, state.generation) } : nil }
        if let current { return current }
        let watch = FileWatch(path)
        let connection = try await open(on: .singleton)
        let (kept, replaced) = state.withLock { state -> ((SQLiteConnection, Int), SQLiteConnection?) in
            // Another statement opened the same file meanwhile: its connection stays.
            if state.identity == identity, let open = state.connection { return ((open, state.generation), connection) }
            let replaced = state.connection
            state.connection = connection
            state.identity = identity
            state.watch = watch
            state.generation += 1
            return ((connection, state.generation), replaced)
        }
        if let replaced { await Self.closeSafely(replaced) }
        return kept
    }

    /// A new connection to the file at ``path``, which must be there (SQLite would create it),
    /// its statements run on `threads`; `checked` reads the schema at once, so that a file that
    /// is not a database, or is damaged, says so now rather than later.
    func open(on threads: NIOThreadPool, checked: Bool = true) async throws -> SQLiteConnection {
        guard FileIdentity(path) != nil else { throw missing }
        let connection = try await SQLiteConnection.open(storage: .file(path: path), threadPool: threads, logger: Self.quiet, on: loop)
        do {
            // SQLite's own busy handler, bounded (SQLiteNIO's waits for ever): a statement that
            // meets another connection's lock waits for it inside SQLite, then fails (a 503).
            // Its row is not wanted, so not collected: SQLiteNIO's collecting form appends to an
            // unguarded array on its thread and reads it after the await, an order the thread
            // sanitizer cannot see through the concurrency runtime, and reports as a race.
            try await connection.query("PRAGMA busy_timeout = \(busyTimeout.milliseconds)", []) { _ in }
            // Unicode case folding for TextSearch, which SQLite's own lower() lacks.
            try await connection.install(customFunction: TextFolding.sqliteFunction)
            if checked { try await SqliteFileSqlDatabase(backend: self, pinned: connection).raw("SELECT count(*) FROM sqlite_master").run() }
        } catch {
            await Self.closeSafely(connection)
            throw error
        }
        return connection
    }

    /// Closes `connection`, even from a cancelled task: SQLiteNIO's async calls do nothing in
    /// one, which would leave the connection open, holding whatever lock it held.
    static func closeSafely(_ connection: SQLiteConnection) async {
        try? await connection.close().get()
    }

    /// Closes `connection` unless another one replaced it already: the next statement opens
    /// the file afresh.
    package func disconnect(_ connection: SQLiteConnection? = nil) async {
        let closing = state.withLock { state -> SQLiteConnection? in
            guard let open = state.connection, connection == nil || open === connection else { return nil }
            state.connection = nil
            state.identity = nil
            state.watch = nil
            return open
        }
        if let closing { await Self.closeSafely(closing) }
    }

    public func failure(_ error: any Error, doing what: String) -> any Error {
        if error is HttpError || error is DatabaseError || error is CancellationError { return error }
        let worded = words(error, doing: what)
        guard let sqliteError = error as? SQLiteError, Self.isLock(sqliteError.reason) else { return worded }
        return busy
    }

    /// The answer while another connection holds the file for longer than the busy timeout.
    var busy: HttpError {
        HttpError(.serviceUnavailable, "The database is busy right now. Please try again in a minute.", headers: ["Retry-After": "60"])
    }

    public func withSession<T: Sendable>(_ work: @escaping @Sendable (any SQLDatabase) async throws -> T) async throws -> T {
        try await session(work)
    }

    public func beginTransaction(on session: any SQLDatabase) async throws {
        // IMMEDIATE: the write lock now, waited for up to the busy timeout. A deferred
        // transaction that read first and then wrote would fail at once when another held the
        // lock (SQLite cannot wait there without a deadlock), where this one takes its turn.
        try await session.raw("BEGIN IMMEDIATE").run()
    }

    public func beginMigration(on session: any SQLDatabase) async throws {
        // The write lock at once, so that two processes migrating the file take turns.
        try await beginTransaction(on: session)
    }

    /// Has the shared connection read the file's schema anew. A connection keeps the schema it
    /// read until a statement it runs finds the file's changed; and SQLiteNIO takes a result's
    /// columns before the statement's first step, so the first `SELECT *` after a migration
    /// that added a column (on a session's connection) would come back without it.
    public func migrated() async {
        _ = try? await sql.raw("SELECT count(*) FROM sqlite_master").all()
    }

    public func shutdown() async {
        await disconnect()
        let thread = sessionThread.withLock { thread in
            defer { thread = nil }
            return thread
        }
        try? await thread?.shutdownGracefully()
    }

    /// The dialect of every connection.
    var dialect: any SQLDialect { SQLiteDialect() }
    var eventLoop: any EventLoop { loop }

    /// Another connection holds a lock: a wait that timed out, not damage.
    static func isLock(_ reason: SQLiteError.Reason) -> Bool {
        switch reason {
        case .busy, .locked, .busyInRecovery, .busyInSnapshot, .busyTimeout, .lockedBySharedCache, .lockedVirtualTable: true
        default: false
        }
    }

    /// Whether `error` is another connection's lock.
    package static func isLock(_ error: any Error) -> Bool {
        (error as? SQLiteError).map { isLock($0.reason) } ?? false
    }

    /// The file is not at ``path``.
    var missing: DatabaseError { DatabaseError("\(path): the \(subject) is missing (moved or deleted?).") }

    /// Another connection held the file for longer than the busy timeout.
    package var lockedProblem: String { "the \(subject) is locked by another connection (waited \(busyTimeout.words))" }

    /// What SQLite said, in words a person can act on, starting with the file.
    package func words(_ error: any Error, doing what: String) -> DatabaseError {
        if let error = error as? DatabaseError { return error }
        guard let error = error as? SQLiteError else { return DatabaseError("\(path): cannot \(what): \(error).") }
        let problem: String
        switch error.reason {
        case let reason where Self.isLock(reason): problem = lockedProblem
        case .notADatabase: problem = "not a SQLite database (damaged or another kind of file)"
        case .corrupt, .corruptIndex, .corruptSequenceSchema, .corruptVirtualTable: problem = "the \(subject) is corrupt (truncated or damaged)"
        case .cantOpen, .cantOpenDirectory, .cantOpenInvalidPath: problem = "cannot open the \(subject)"
        case .readOnly, .readonlyDirectory, .readonlyCantLock, .readonlyInRecovery, .readonlyInRollback, .readonlyBackingMoved:
            problem = "the \(subject) is read-only: \(what) needs write access"
        case .permission, .auth: problem = "no permission to read the \(subject)"
        case .ioError, .ioErrorFailedRead, .ioErrorIncompleteRead: problem = "cannot read the \(subject) (I/O error)"
        default: problem = "cannot \(what)"
        }
        return DatabaseError("\(path): \(problem) (SQLite: \(error.message)).")
    }

    static let quiet = Logger(label: "micro.sqlite.quiet", factory: { _ in SwiftLogNoOpLogHandler() })
}

extension Database {
    /// The SQLite file at `path`, created (0600) when missing.
    ///
    /// ```swift
    /// let database = try await Database.sqlite(path: "notes.db")
    /// ```
    public static func sqlite(path: String, busyTimeout: Duration = .seconds(2)) async throws(ConfigurationError) -> Database {
        Database(try await SqliteBackend.open(path: path, busyTimeout: busyTimeout))
    }
}
