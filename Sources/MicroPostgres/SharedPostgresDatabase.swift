#if Postgres
import Foundation
import Logging
import MicroAuth
import MicroCore
import NIOConcurrencyHelpers
import NIOCore
import PostgresNIO

/// A PostgreSQL database several instances of an app share: a pool of connections
/// (`PostgresClient`, run by a task this object owns) for the statements, and one more
/// connection that listens for the changes other instances (and `add-user`, and plain SQL)
/// make, so that what each instance keeps in memory follows within moments.
///
/// ```swift
/// let database = try await SharedPostgresDatabase.connect(url: "postgres://micro:secret@db:5432/micro")
/// var authentication = Authentication(users: try await PostgresUserStore(database))
/// authentication.throttleStore = try await PostgresSignInThrottleStore(database)
/// app.settings.sessions.revocations = try await PostgresSessionRevocations(database)
/// ```
///
/// When the database stops answering, statements fail at once with a 503 (sign-in is
/// unavailable; what requests read from memory goes on), the outage is logged once, and the
/// listening connection is tried again with a growing pause (up to 5 seconds) until it is back;
/// then everything kept in memory is read afresh, and that is logged too.
public final class SharedPostgresDatabase: Sendable {
    /// Where it is (without the password).
    public let url: PostgresUrl
    /// The pool.
    public let client: PostgresClient
    /// How long a statement may take, on the server and waiting for it here.
    public let queryTimeout: Duration
    let logger: Logger
    private let connectionConfiguration: PostgresConnection.Configuration
    private let tasks = NIOLockedValueBox<[Task<Void, Never>]>([])
    private let subscribers = NIOLockedValueBox<[Subscriber]>([])
    private let outage = NIOLockedValueBox<Outage?>(nil)
    private let reloads = NIOLockedValueBox(0)
    /// The ``Database`` over this one, made once: its migrations are the app's.
    private let sqlDatabase = NIOLockedValueBox<WeakDatabase>(WeakDatabase())
    /// The channel of the notifications the schema's triggers send.
    static let channel = "micro_changes"

    /// What follows the changes: `notified` for a notification whose payload starts with
    /// `prefix`, `reload` when the listening connection (re)connects.
    struct Subscriber: Sendable {
        let prefix: Character
        let notified: @Sendable (Substring, PostgresConnection) async throws -> Void
        let reload: @Sendable (PostgresConnection) async throws -> Void
    }

    private struct Outage {
        let since: ContinuousClock.Instant
        let reason: String
        var lastTry: ContinuousClock.Instant
    }

    /// Connects to `url`, checks the database answers, and creates Micro's tables, indexes and
    /// triggers when missing. A bad URL, an unreachable server, a wrong password or a missing
    /// database is a ``/MicroCore/ConfigurationError`` saying which.
    public static func connect(url text: String, queryTimeout: Duration = .seconds(5), logger: Logger = Logger(label: "micro.postgres"))
        async throws(ConfigurationError) -> SharedPostgresDatabase
    {
        let url: PostgresUrl
        do throws(ConfigurationError) {
            url = try PostgresUrl(text)
        } catch {
            throw ConfigurationError("The database URL is not usable: \(error.message)")
        }
        let database: SharedPostgresDatabase
        do {
            database = try SharedPostgresDatabase(url: url, queryTimeout: queryTimeout, logger: logger)
        } catch {
            throw ConfigurationError("\(url): cannot set up TLS: \(error)")
        }
        do {
            // One connection first: the pool would wait for the server, this says why not.
            try await database.checkConnection()
            try await database.prepareSchema()
        } catch {
            database.shutdown()
            throw ConfigurationError("\(url): \(Self.describe(error))")
        }
        database.startListening()
        return database
    }

    private init(url: PostgresUrl, queryTimeout: Duration, logger: Logger) throws {
        self.url = url
        self.queryTimeout = queryTimeout
        self.logger = logger
        let connectTimeout = min(queryTimeout, .seconds(5))
        client = PostgresClient(configuration: url.clientConfiguration(connectTimeout: connectTimeout, statementTimeout: queryTimeout))
        connectionConfiguration = try url.connectionConfiguration(connectTimeout: connectTimeout, statementTimeout: queryTimeout)
        let client = client
        tasks.withLockedValue { $0.append(Task { await client.run() }) }
    }

    /// This database as a ``/MicroCore/Database``: sql-kit's builder over the pool, with this object's
    /// outage handling. The same one each time while someone holds it.
    public var database: Database {
        sqlDatabase.withLockedValue { cache in
            if let database = cache.database { return database }
            let database = Database(PostgresBackend(self))
            cache.database = database
            return database
        }
    }

    /// An event loop of the pool's group, for sql-kit's futures.
    var eventLoop: any EventLoop { PostgresConnection.defaultEventLoopGroup.any() }

    /// Stops the listening connection and the pool. Statements fail afterwards.
    public func shutdown() {
        for task in tasks.withLockedValue({ tasks in defer { tasks = [] }; return tasks }) { task.cancel() }
    }

    /// Whether the database answered last time: false from a failure until the listening
    /// connection is back.
    public var isReachable: Bool { outage.withLockedValue { $0 == nil } }

    /// How many times the listening connection read everything afresh (each connection does,
    /// once): tests wait for a reconnection with it.
    public var reloadCount: Int { reloads.withLockedValue { $0 } }

    /// Runs `work` on a connection of the pool, bounded by ``queryTimeout`` from the moment it has
    /// one. While the database is known to be unreachable, fails at once. A failure to reach it
    /// (not an error the server answered with) starts an outage and is a 503 ``/MicroCore/HttpError``. A
    /// wait for the connection longer than ``queryTimeout`` is a 503 too, but no outage: every
    /// connection is busy (transactions hold theirs), or the listening connection is about to
    /// find the outage. The server's errors are ``/MicroAuth/UserStoreError``s with its message.
    public func run<T: Sendable>(_ what: String, _ work: @escaping @Sendable (PostgresConnection) async throws -> T) async throws -> T {
        guard mayTry() else { throw Self.unavailable }
        let client = client
        var attempt = 0
        while true {
            attempt += 1
            do {
                let result = try await withLeasedConnection(client, limit: queryTimeout, what, work)
                endOutage()
                return result
            } catch let error as PSQLError where error.serverInfo != nil {
                throw UserStoreError("\(url): cannot \(what): \(Self.describe(error))")
            } catch let error as UserStoreError {
                throw error
            } catch is NoConnectionInTime {
                throw noConnection
            } catch let error as PSQLError where error.code == .poolClosed {
                throw Self.unavailable
            } catch is DeadlineExceeded {
                beginOutage("\(what) took longer than \(queryTimeout)")
                throw Self.unavailable
            } catch {
                // The pool may hand out a connection the server closed (it restarted): once more
                // on another before calling it an outage.
                if attempt < 2 { continue }
                beginOutage(Self.describe(error))
                throw Self.unavailable
            }
        }
    }

    /// Runs `work` on one connection of the pool (a transaction's). While the database is known
    /// to be unreachable it fails at once with a 503. Waiting for the connection is bounded by
    /// ``queryTimeout``, then a 503 too: the pool would wait while every connection is busy, and
    /// while it cannot connect, until its circuit breaker trips a minute later. A pool that fails
    /// the wait (that breaker) starts an outage. `work` is not bounded here: each of its
    /// statements is, by the server's statement timeout.
    public func withConnection<T>(_ work: @escaping @Sendable (PostgresConnection) async throws -> T) async throws -> T {
        guard mayTry() else { throw Self.unavailable }
        let lease = NIOLockedValueBox(LeaseWait.waiting)
        let client = client, limit = queryTimeout
        return try await withThrowingTaskGroup(of: Handed<T>?.self) { group in
            group.addTask {
                do {
                    return try await client.withConnection { connection in
                        // Given up on a moment ago: the connection goes back unused, and this
                        // error may reach the caller before the timer's own.
                        guard lease.withLockedValue({ $0.take() }) else { throw self.noConnection }
                        return Handed(value: try await work(connection))
                    }
                } catch where lease.withLockedValue({ $0.fail() }) {
                    if Task.isCancelled { throw CancellationError() }
                    if let error = error as? PSQLError, error.code == .poolClosed { throw Self.unavailable }
                    self.beginOutage(Self.describe(error))
                    throw Self.unavailable
                }
            }
            group.addTask {
                guard (try? await Task.sleep(for: limit)) != nil else { return nil }
                if lease.withLockedValue({ $0.giveUp() }) { throw self.noConnection }
                return nil
            }
            // The work's task ends with a value or an error; the timer's with neither, or a 503.
            while let ended = try await group.next() {
                guard let handed = ended else { continue }
                group.cancelAll()
                return handed.value
            }
            throw CancellationError()
        }
    }

    /// The work's value, handed once from its task to the caller's, which waits for it. sql-kit's
    /// sessions may return what is not `Sendable`.
    private struct Handed<T>: @unchecked Sendable {
        let value: T
    }

    /// Whether a statement may be tried now: always while the database answers; during an
    /// outage, one try a second (the listening connection tries too, with its own pauses).
    private func mayTry() -> Bool {
        outage.withLockedValue { outage in
            guard let current = outage else { return true }
            guard ContinuousClock.now - current.lastTry >= .seconds(1) else { return false }
            outage?.lastTry = .now
            return true
        }
    }

    /// What sign-in answers while the database is unreachable.
    static let unavailable = HttpError(.serviceUnavailable, "Sign-in is unavailable right now: the user database cannot be reached. Please try again in a minute.",
        headers: ["Retry-After": "30"])

    /// What a statement or a transaction answers when no connection of the pool came free in time.
    static let busy = HttpError(.serviceUnavailable, "The database is busy right now. Please try again in a minute.", headers: ["Retry-After": "30"])

    /// Why no connection came: an outage the listening connection found meanwhile (the pool
    /// could not connect), else every connection busy.
    private var noConnection: HttpError { isReachable ? Self.busy : Self.unavailable }

    func subscribe(_ subscriber: Subscriber) {
        subscribers.withLockedValue { $0.append(subscriber) }
    }

    /// Logged once per outage.
    private func beginOutage(_ reason: String) {
        let began = outage.withLockedValue { outage -> Bool in
            guard outage == nil else { return false }
            outage = Outage(since: .now, reason: reason, lastTry: .now)
            return true
        }
        if began {
            logger.error("PostgreSQL at \(url) is unreachable (\(reason)): sign-in answers 503 until it is back; signed-in pages go on. Reconnecting.")
        }
    }

    private func endOutage() {
        guard let ended = outage.withLockedValue({ outage in defer { outage = nil }; return outage }) else { return }
        let seconds = (ContinuousClock.now - ended.since).components.seconds
        logger.notice("PostgreSQL at \(url) is reachable again after \(seconds) s; sign-in works again.")
    }

    /// The listening connection: LISTEN, read everything afresh, then follow the notifications,
    /// checking the connection every 2 seconds; on any failure, again after a growing pause.
    private func startListening() {
        let task = Task { [self] in
            var pause = Duration.milliseconds(100)
            var id = 0
            while !Task.isCancelled {
                id += 1
                do {
                    try await listen(id: id) { pause = .milliseconds(100) }
                } catch is CancellationError {
                    return
                } catch {
                    if Task.isCancelled { return }
                    beginOutage(Self.describe(error))
                }
                guard (try? await Task.sleep(for: pause)) != nil else { return }
                pause = min(pause * 2, .seconds(5))
            }
        }
        tasks.withLockedValue { $0.append(task) }
    }

    private func listen(id: Int, connected: () -> Void) async throws {
        let configuration = connectionConfiguration
        let logger = logger
        let connection = try await withDeadline(queryTimeout, "connect") {
            try await PostgresConnection.connect(configuration: configuration, id: id, logger: logger)
        }
        defer { Task { try? await connection.close() } }
        try await connection.listen(on: Self.channel) { notifications in
            // Listening now: nothing that changes from here on is missed, so read it all.
            for subscriber in subscribers.withLockedValue({ $0 }) {
                try await withDeadline(queryTimeout, "read the shared state") { try await subscriber.reload(connection) }
            }
            reloads.withLockedValue { $0 += 1 }
            connected()
            endOutage()
            let heartbeat = Task { [queryTimeout] in
                // A connection that silently went away (a network cut) is noticed here and
                // closed, which ends the notifications below.
                while !Task.isCancelled {
                    guard (try? await Task.sleep(for: .seconds(2))) != nil else { return }
                    do {
                        try await withDeadline(queryTimeout, "check the connection") { _ = try await connection.query("SELECT 1", logger: logger) }
                    } catch {
                        try? await connection.close()
                        return
                    }
                }
            }
            defer { heartbeat.cancel() }
            for try await notification in notifications {
                let payload = notification.payload
                guard let first = payload.first else { continue }
                for subscriber in subscribers.withLockedValue({ $0 }) where subscriber.prefix == first {
                    do {
                        try await withDeadline(queryTimeout, "follow a change") {
                            try await subscriber.notified(payload.dropFirst(), connection)
                        }
                    } catch {
                        logger.warning("Could not follow a change in PostgreSQL (\(payload.prefix(80))): \(Self.describe(error))")
                        throw error
                    }
                }
            }
            throw UserStoreError("the server ended the notifications")
        }
    }

    private func checkConnection() async throws {
        let configuration = connectionConfiguration
        let logger = logger
        try await withDeadline(queryTimeout, "connect") {
            let connection = try await PostgresConnection.connect(configuration: configuration, id: 0, logger: logger)
            try? await connection.close()
        }
    }

    /// Creates what Micro keeps when missing, one instance at a time (an advisory lock).
    private func prepareSchema() async throws {
        let statements = PostgresSchema.statements
        try await withDeadline(max(queryTimeout, .seconds(10)), "create the tables") { [client] in
            try await client.withConnection { connection in
                try await connection.query("SELECT pg_advisory_lock(\(PostgresSchema.lockKey))", logger: SharedPostgresDatabase.quiet)
                do {
                    for statement in statements {
                        try await connection.query(PostgresQuery(unsafeSQL: statement), logger: SharedPostgresDatabase.quiet)
                    }
                } catch {
                    _ = try? await connection.query("SELECT pg_advisory_unlock(\(PostgresSchema.lockKey))", logger: SharedPostgresDatabase.quiet)
                    throw error
                }
                try await connection.query("SELECT pg_advisory_unlock(\(PostgresSchema.lockKey))", logger: SharedPostgresDatabase.quiet)
            }
        }
    }

    static let quiet = Logger(label: "micro.postgres.quiet", factory: { _ in SwiftLogNoOpLogHandler() })

    /// An error in words: PostgreSQL's message for a server error, else what failed, never a
    /// password or a bound value.
    static func describe(_ error: any Error) -> String {
        if let error = error as? PSQLError {
            if let info = error.serverInfo {
                return [info[.message], info[.detail].map { "(\($0))" }].compactMap { $0 }.joined(separator: " ")
            }
            if let underlying = error.underlying { return "\(error.code): \(underlying)" }
            return "\(error.code)"
        }
        if let error = error as? DeadlineExceeded { return error.description }
        return "\(error)"
    }
}

/// The ``Database`` a ``SharedPostgresDatabase`` made, held weakly: the database holds the
/// shared one, not the other way round.
struct WeakDatabase {
    weak var database: Database?
}
#endif
