import Crypto
import Foundation
import MicroCore
import SQLKit

/// The failure counts of the sign-in throttle in a ``/MicroCore/Database`` (SQLite or PostgreSQL), so
/// that five failures spread over any number of instances lock the name on all of them, and a
/// restart forgets none. Set it in ``Authentication/throttleStore``.
///
/// ```swift
/// authentication.throttleStore = try await DatabaseSignInThrottleStore(database)
/// ```
///
/// Each count is one row of `micro_sign_in_failures`, changed by one atomic statement
/// (`INSERT ... ON CONFLICT DO UPDATE ... RETURNING`): two instances counting at once both
/// count. The names are kept as keyed digests; the key is made once and kept in the table
/// `micro_keys`, so that every instance digests a name alike.
public final class DatabaseSignInThrottleStore: SignInThrottleStore {
    /// The database.
    public let database: Database
    public let digestKey: SymmetricKey
    private let recorded = Locked(0)

    /// The store over `database`: creates its tables when missing, and reads (or makes) the
    /// shared digest key now.
    public init(_ database: Database) async throws(ConfigurationError) {
        self.database = database
        try await database.migrate(Self.migrations)
        let candidate = SymmetricKey(size: .bits256).withUnsafeBytes { Data($0) }
        do {
            digestKey = try await database.run("read the sign-in throttle's key") { sql in
                try await sql.raw("INSERT INTO micro_keys (name, key) VALUES ('sign-in throttle', \(bind: candidate)) ON CONFLICT (name) DO NOTHING").run()
                guard let row = try await sql.select().column("key").from("micro_keys").where("name", .equal, "sign-in throttle").first() else {
                    throw DatabaseError("\(database): the sign-in throttle's key is missing from micro_keys.")
                }
                return SymmetricKey(data: try row.decode(column: "key", as: Data.self))
            }
        } catch {
            throw ConfigurationError("\(database): cannot read the sign-in throttle's key: \(Database.words(error))")
        }
    }

    /// The tables, where no other instance made them yet.
    static let migrations = [
        Migration("micro 1 sign-in failures") { sql in
            try await sql.create(table: "micro_sign_in_failures").ifNotExists()
                .column("key", type: .blob, .primaryKey(autoIncrement: false))
                .column("window_start", type: .bigint, .notNull)
                .column("failures", type: .int, .notNull)
                .run()
            try await sql.create(table: "micro_keys").ifNotExists()
                .column("name", type: .text, .primaryKey(autoIncrement: false))
                .column("key", type: .blob, .notNull)
                .run()
        },
    ]

    public func failures(username: SignInThrottle.Key?, address: SignInThrottle.Key?, window: Int64, now: Int64) async throws
        -> SignInFailures
    {
        let keys = Self.keys(username: username, address: address)
        guard !keys.isEmpty else { return SignInFailures() }
        return try await database.run("read the sign-in throttle") { sql in
            var result = SignInFailures()
            for (kind, key) in keys {
                let row = try await sql.select().columns("window_start", "failures").from("micro_sign_in_failures")
                    .where("key", .equal, key).where("window_start", .greaterThan, now - window).first()
                if let row { Self.set(&result, kind, try Self.count(row)) }
            }
            return result
        }
    }

    public func recordFailure(username: SignInThrottle.Key?, address: SignInThrottle.Key?, window: Int64, now: Int64) async throws
        -> SignInFailures
    {
        let keys = Self.keys(username: username, address: address)
        guard !keys.isEmpty else { return SignInFailures() }
        let sweep = recorded.withLock { (count: inout Int) -> Bool in
            count += 1
            return count % 1000 == 0
        }
        return try await database.run("count a failed sign-in") { sql in
            var result = SignInFailures()
            for (kind, key) in keys {
                // A window that has passed begins anew with this failure.
                let row = try await sql.raw("""
                    INSERT INTO micro_sign_in_failures (key, window_start, failures) VALUES (\(bind: key), \(bind: now), 1)
                    ON CONFLICT (key) DO UPDATE SET
                        window_start = CASE WHEN \(bind: now) - micro_sign_in_failures.window_start >= \(bind: window)
                            THEN \(bind: now) ELSE micro_sign_in_failures.window_start END,
                        failures = CASE WHEN \(bind: now) - micro_sign_in_failures.window_start >= \(bind: window)
                            THEN 1 ELSE micro_sign_in_failures.failures + 1 END
                    RETURNING window_start, failures
                    """).first()
                if let row { Self.set(&result, kind, try Self.count(row)) }
            }
            if sweep {
                try await sql.delete(from: "micro_sign_in_failures").where("window_start", .lessThanOrEqual, now - window).run()
            }
            return result
        }
    }

    public func clear(username: SignInThrottle.Key) async throws {
        let key = Self.bytes("n", username)
        try await database.run("clear a name's failed sign-ins") { sql in
            try await sql.delete(from: "micro_sign_in_failures").where("key", .equal, key).run()
        }
    }

    private static func count(_ row: any SQLRow) throws -> SignInFailures.Count {
        SignInFailures.Count(
            windowStart: try row.decode(column: "window_start", as: Int64.self), failures: try row.decode(column: "failures", as: Int.self))
    }

    private static func keys(username: SignInThrottle.Key?, address: SignInThrottle.Key?) -> [(Character, Data)] {
        var keys: [(Character, Data)] = []
        if let username { keys.append(("n", bytes("n", username))) }
        if let address { keys.append(("a", bytes("a", address))) }
        return keys
    }

    /// A name's and an address's keys never meet: a kind byte comes first.
    private static func bytes(_ kind: Character, _ key: SignInThrottle.Key) -> Data {
        Data([kind.asciiValue!] + key.bytes)
    }

    private static func set(_ result: inout SignInFailures, _ kind: Character, _ count: SignInFailures.Count) {
        if kind == "n" { result.username = count } else { result.address = count }
    }
}
