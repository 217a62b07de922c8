#if Postgres
import Foundation
import Logging
import MicroCore
import NIOConcurrencyHelpers
import PostgresKit

/// Revocations every instance of an app shares through a ``SharedPostgresDatabase``: a sign-out, a
/// "sign out everywhere" or everyone's revocation on one instance ends those sessions on all.
///
/// Requests are answered from memory (a ``/MicroCore/MemorySessionRevocations``), never from the
/// database. A revocation takes effect here at once and is written to the table
/// `micro_session_revocations` in the background (again later while the database is
/// unreachable); a trigger announces it, and every instance adds it to its memory. The
/// listening connection reads the whole table whenever it (re)connects, so an instance that
/// missed announcements while cut off catches up.
///
/// The table keeps a revoked session's id (it no longer opens anything), a user's name, and
/// times; a row goes once the sessions it ends would have expired anyway. A revocation is
/// timed to the millisecond, as sessions are, and every instance keeps the instant the one
/// that made it chose: a sign-in just after it, on any instance that has heard of it, stands.
public final class PostgresSessionRevocations: SessionRevocations {
    /// The database.
    public let database: SharedPostgresDatabase
    private let memory = MemorySessionRevocations()
    private let pending: AsyncStream<Row>.Continuation
    private let writer: NIOLockedValueBox<Task<Void, Never>?> = NIOLockedValueBox(nil)
    private let unwritten = NIOLockedValueBox(0)

    struct Row: Sendable {
        let kind: String
        let subject: String
        /// When it took effect, in milliseconds since 1970.
        let time: Int64
        /// When it may go, in seconds since 1970.
        let expiry: Int64
    }

    /// Revocations shared through `database`; what it holds is read now.
    public init(_ database: SharedPostgresDatabase) async throws(ConfigurationError) {
        self.database = database
        let (stream, continuation) = AsyncStream.makeStream(of: Row.self)
        pending = continuation
        let memory = memory
        database.subscribe(SharedPostgresDatabase.Subscriber(
            prefix: "r",
            notified: { payload, _ in
                if let row = Self.parse(payload) { Self.apply(row, to: memory) }
            },
            reload: { connection in
                try await Self.readAll(connection, into: memory)
            }))
        do {
            try await database.run("read the revoked sessions") { try await Self.readAll($0, into: memory) }
        } catch {
            throw ConfigurationError("\(database.url): cannot read the revoked sessions: \(SharedPostgresDatabase.describe(error))")
        }
        let unwritten = unwritten
        writer.withLockedValue {
            $0 = Task {
                for await row in stream {
                    await Self.write(row, to: database)
                    unwritten.withLockedValue { $0 -= 1 }
                }
            }
        }
    }

    deinit {
        pending.finish()
    }

    /// How many revocations wait to be written: tests wait for none.
    public var unwrittenCount: Int { unwritten.withLockedValue { $0 } }

    public func revoke(id: String, until expiry: Int64, now: Int64) {
        memory.revoke(id: id, until: expiry, now: now)
        guard expiry > now else { return }
        enqueue(Row(kind: "session", subject: id, time: now * 1000, expiry: expiry))
    }

    @discardableResult
    public func revokeSessions(of username: String, at time: Int64, until expiry: Int64, now: Int64) -> Int64 {
        let instant = memory.revokeSessions(of: username, at: time, until: expiry, now: now)
        // Kept as much longer as it took effect later (as the memory keeps it).
        let (moved, overflow) = expiry.addingReportingOverflow((instant - time + 999) / 1000)
        enqueue(Row(kind: "user", subject: username, time: instant, expiry: overflow ? .max : moved))
        return instant
    }

    @discardableResult
    public func revokeAll(at time: Int64) -> Int64 {
        let instant = memory.revokeAll(at: time)
        enqueue(Row(kind: "all", subject: "", time: instant, expiry: .max))
        return instant
    }

    public func beginning(at now: Int64) -> Int64 {
        memory.beginning(at: now)
    }

    public func isRevoked(id: String, created: Int64) -> Bool {
        memory.isRevoked(id: id, created: created)
    }

    public func isRevoked(username: String, created: Int64) -> Bool {
        memory.isRevoked(username: username, created: created)
    }

    private func enqueue(_ row: Row) {
        unwritten.withLockedValue { $0 += 1 }
        pending.yield(row)
    }

    /// Writes the row, trying again (with a growing pause) until the database takes it.
    private static func write(_ row: Row, to database: SharedPostgresDatabase) async {
        var pause = Duration.milliseconds(200)
        var logged = false
        while !Task.isCancelled {
            do {
                try await database.database.run("record a revocation") { sql in
                    try await sql.raw("""
                        INSERT INTO micro_session_revocations (kind, subject, revoked_at_ms, expires_at)
                        VALUES (\(bind: row.kind), \(bind: row.subject), \(bind: row.time), \(bind: row.expiry))
                        ON CONFLICT (kind, subject) DO UPDATE SET
                            revoked_at_ms = greatest(micro_session_revocations.revoked_at_ms, excluded.revoked_at_ms),
                            expires_at = greatest(micro_session_revocations.expires_at, excluded.expires_at)
                        """).run()
                }
                return
            } catch {
                if !logged {
                    let reason = error is HttpError ? "unreachable" : SharedPostgresDatabase.describe(error)
                    database.logger.warning("A revocation waits for PostgreSQL (\(reason)) to reach the other instances; it holds on this one meanwhile.")
                    logged = true
                }
                guard (try? await Task.sleep(for: pause)) != nil else { return }
                pause = min(pause * 2, .seconds(5))
            }
        }
    }

    private static func readAll(_ connection: PostgresConnection, into memory: MemorySessionRevocations) async throws {
        let sql = connection.sql(queryLogLevel: nil)
        let now = Int64(Date().timeIntervalSince1970)
        try await sql.delete(from: "micro_session_revocations").where("expires_at", .lessThanOrEqual, now).run()
        let rows = try await sql.select().columns("kind", "subject", "revoked_at_ms", "expires_at").from("micro_session_revocations")
            .all(decoding: Stored.self, keyDecodingStrategy: .convertFromSnakeCase)
        for row in rows {
            apply(Row(kind: row.kind, subject: row.subject, time: row.revokedAtMs, expiry: row.expiresAt), to: memory)
        }
    }

    /// A row as the table holds it.
    private struct Stored: Decodable {
        let kind: String
        let subject: String
        let revokedAtMs: Int64
        let expiresAt: Int64
    }

    /// `session 1700000000000 1700028800 ID`, as the trigger announces a row.
    static func parse(_ payload: Substring) -> Row? {
        let parts = payload.split(separator: " ", maxSplits: 3, omittingEmptySubsequences: false)
        guard parts.count == 4, let time = Int64(parts[1]), let expiry = Int64(parts[2]) else { return nil }
        return Row(kind: String(parts[0]), subject: String(parts[3]), time: time, expiry: expiry)
    }

    private static func apply(_ row: Row, to memory: MemorySessionRevocations) {
        let now = Int64(Date().timeIntervalSince1970)
        switch row.kind {
        case "session": memory.revoke(id: row.subject, until: row.expiry, now: now)
        // At the instant the instance that made it chose, never moved again here.
        case "user": memory.revokeSessions(of: row.subject, madeElsewhereAt: row.time, until: row.expiry, now: now)
        case "all": memory.revokeAll(madeElsewhereAt: row.time)
        default: break
        }
    }
}
#endif
