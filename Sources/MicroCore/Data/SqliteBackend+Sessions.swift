import NIOPosix
import SQLiteKit

extension SqliteBackend {
    /// The session open in this task (and the tasks it made), with its backend. A task made
    /// inside it may outlive it: `isOpen` tells it the session ended.
    struct OpenSession: Sendable {
        let backend: ObjectIdentifier
        let connection: SQLiteConnection
        let isOpen = Locked(true)
    }

    @TaskLocal static var openSession: OpenSession?

    /// The connection of the session this task has open on this backend, if any: a statement
    /// sent to ``sql`` from inside it runs in it, as Sequel's do, instead of waiting for it.
    var sessionConnection: SQLiteConnection? {
        guard let open = Self.openSession, open.backend == ObjectIdentifier(self), open.isOpen.withLock({ $0 }) else { return nil }
        return open.connection
    }

    /// Runs `work` on a connection of its own, closed when it ends, whatever happened (which
    /// rolls back a transaction it left open).
    ///
    /// Its own, not the shared one: a transaction it opens then holds only its statements. On
    /// the shared connection, other requests' statements would join the transaction, and be
    /// rolled back with it.
    ///
    /// Sessions take turns, each waiting for the one before it up to the busy timeout (then a
    /// 503), without holding a thread; so do statements on the shared connection while one is
    /// open (``waitForOpenSessions()``). A session opened from inside another of this task is
    /// that one.
    func session<R>(_ work: (SqliteFileSqlDatabase) async throws -> R) async throws -> R {
        if let connection = sessionConnection { return try await work(SqliteFileSqlDatabase(backend: self, pinned: connection)) }
        return try await sessionTurns.withTurn(waitingAtMost: busyTimeout, timedOut: busy) {
            let thread = sessionThread.withLock { thread in
                if let thread { return thread }
                let started = NIOThreadPool(numberOfThreads: 1)
                started.start()
                thread = started
                return started
            }
            // Unchecked: its first statement reads the file, and says what is wrong with it.
            let connection = try await open(on: thread, checked: false)
            openSessions.withLock { $0 += 1 }
            defer { openSessions.withLock { $0 -= 1 } }
            let open = OpenSession(backend: ObjectIdentifier(self), connection: connection)
            let result: R
            do {
                result = try await Self.$openSession.withValue(open) {
                    try await work(SqliteFileSqlDatabase(backend: self, pinned: connection))
                }
            } catch {
                open.isOpen.withLock { $0 = false }
                await Self.closeSafely(connection)
                throw error
            }
            open.isOpen.withLock { $0 = false }
            await Self.closeSafely(connection)
            return result
        }
    }

    /// Waits, without a thread, until no session is open, up to the busy timeout (then a 503).
    ///
    /// A statement on the shared connection would otherwise wait inside SQLite for the session's
    /// write lock, holding a thread of the shared pool and the connection, so that every other
    /// statement, reads too, would queue behind it, each on a thread of the pool.
    func waitForOpenSessions() async throws {
        guard openSessions.withLock({ $0 > 0 }) else { return }
        try await sessionTurns.withTurn(waitingAtMost: busyTimeout, timedOut: busy) {}
    }
}
