import Foundation
import Logging
import NIOCore
import SQLiteKit

/// A SQLite file through sqlite-kit: one connection (SQLite writes one at a time anyway), its
/// statements run on NIO's thread pool, off the event loops.
public final class SqliteBackend: DatabaseBackend {
    /// The file.
    public let path: String
    /// How long a statement waits for another connection's lock before it gives up (a 503).
    public let busyTimeout: Duration
    private let connection: SQLiteConnection
    public let sql: any SQLDatabase

    /// Opens `path`, creating it when missing (readable and writable by its owner only, whatever
    /// the umask: it may hold what the app keeps private). A file group or others may open is
    /// logged as a warning naming the fix.
    public static func open(path: String, busyTimeout: Duration = .seconds(2)) async throws(ConfigurationError) -> SqliteBackend {
        if FileIdentity(path) == nil {
            // Made 0600 before SQLite opens it, which would create it 0644 (less the umask).
            do throws(PrivateFileError) {
                if let descriptor = try PrivateFile.create(path) { close(descriptor) }
            } catch {
                throw ConfigurationError("\(path): cannot create the database (\(error.reason)).")
            }
        } else if let warning = PrivateFile.warning(for: path, holding: "the app's data") {
            Logger(label: "micro").warning("\(warning)")
        }
        let connection: SQLiteConnection
        do {
            connection = try await SQLiteConnection.open(storage: .file(path: path), logger: Self.quiet)
        } catch {
            throw ConfigurationError(Self.words(error, path: path, busyTimeout: busyTimeout, doing: "open the database").description)
        }
        let backend = SqliteBackend(path: path, busyTimeout: busyTimeout, connection: connection)
        do {
            // SQLiteNIO waits for a lock forever; a busy timeout gives up, and the request gets a 503.
            _ = try await connection.query("PRAGMA busy_timeout = \(busyTimeout.milliseconds)")
            // A file that is not a database, or is damaged, says so now rather than at the first request.
            _ = try await connection.query("SELECT count(*) FROM sqlite_master")
        } catch {
            try? await connection.close()
            throw ConfigurationError(Self.words(error, path: path, busyTimeout: busyTimeout, doing: "read the database").description)
        }
        return backend
    }

    private init(path: String, busyTimeout: Duration, connection: SQLiteConnection) {
        self.path = path
        self.busyTimeout = busyTimeout
        self.connection = connection
        sql = connection.sql(queryLogLevel: nil)
    }

    deinit {
        // SQLiteNIO requires a connection closed before it goes; the close holds it till then.
        _ = connection.close()
    }

    public var description: String { path }

    public func failure(_ error: any Error, doing what: String) -> any Error {
        if error is HttpError || error is DatabaseError { return error }
        let worded = Self.words(error, path: path, busyTimeout: busyTimeout, doing: what)
        guard let sqliteError = error as? SQLiteError, Self.isLock(sqliteError.reason) else { return worded }
        return HttpError(.serviceUnavailable, "The database is busy right now. Please try again in a minute.", headers: ["Retry-After": "60"])
    }

    public func withSession<T: Sendable>(_ work: @escaping @Sendable (any SQLDatabase) async throws -> T) async throws -> T {
        try await work(sql)
    }

    public func beginMigration(on session: any SQLDatabase) async throws {
        // IMMEDIATE: the write lock now, so that two processes migrating the file take turns.
        try await session.raw("BEGIN IMMEDIATE").run()
    }

    public func shutdown() async {
        try? await connection.close()
    }

    /// Another connection holds a lock: a wait that timed out, not damage.
    static func isLock(_ reason: SQLiteError.Reason) -> Bool {
        switch reason {
        case .busy, .locked, .busyInRecovery, .busyInSnapshot, .busyTimeout, .lockedBySharedCache, .lockedVirtualTable: true
        default: false
        }
    }

    /// What SQLite said, in words a person can act on, starting with the file.
    static func words(_ error: any Error, path: String, busyTimeout: Duration, doing what: String) -> DatabaseError {
        guard let error = error as? SQLiteError else { return DatabaseError("\(path): cannot \(what): \(error).") }
        let problem: String
        switch error.reason {
        case let reason where isLock(reason):
            problem = "the database is locked by another connection (waited \(busyTimeout.words))"
        case .notADatabase: problem = "not a SQLite database (damaged or another kind of file)"
        case .corrupt, .corruptIndex, .corruptSequenceSchema, .corruptVirtualTable: problem = "the database is corrupt (truncated or damaged)"
        case .cantOpen, .cantOpenDirectory, .cantOpenInvalidPath: problem = "cannot open the database"
        case .readOnly, .readonlyDirectory, .readonlyCantLock, .readonlyInRecovery, .readonlyInRollback, .readonlyBackingMoved:
            problem = "the database is read-only: \(what) needs write access"
        case .permission, .auth: problem = "no permission to read the database"
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
