import Crypto
import Micro
import NIOConcurrencyHelpers
import NIOCore
import PostgresNIO

/// The failure counts of the sign-in throttle in a ``SharedPostgresDatabase``, so that five failures
/// spread over any number of instances lock the name on all of them. Set it in
/// ``Authentication/throttleStore``.
///
/// Each count is one row of `micro_sign_in_failures`, changed by one atomic statement
/// (`INSERT ... ON CONFLICT DO UPDATE ... RETURNING`): two instances counting at once both
/// count. The names are kept as keyed digests; the key is made once and kept in the table
/// `micro_keys`, so that every instance digests a name alike.
public final class PostgresSignInThrottleStore: SignInThrottleStore {
    /// The database.
    public let database: SharedPostgresDatabase
    public let digestKey: SymmetricKey
    private let recorded = NIOLockedValueBox(0)

    /// The store over `database`; reads (or makes) the shared digest key now.
    public init(_ database: SharedPostgresDatabase) async throws(ConfigurationError) {
        self.database = database
        let candidate = SymmetricKey(size: .bits256).withUnsafeBytes { ByteBuffer(bytes: $0) }
        do {
            digestKey = try await database.run("read the sign-in throttle's key") { client in
                try await client.query(
                    "INSERT INTO micro_keys (name, key) VALUES ('sign-in throttle', \(candidate)) ON CONFLICT (name) DO NOTHING",
                    logger: SharedPostgresDatabase.quiet)
                for try await key in try await client.query(
                    "SELECT key FROM micro_keys WHERE name = 'sign-in throttle'", logger: SharedPostgresDatabase.quiet
                ).decode(ByteBuffer.self) {
                    return SymmetricKey(data: Array(key.readableBytesView))
                }
                throw UserStoreError("\(database.url): the sign-in throttle's key is missing from micro_keys")
            }
        } catch {
            throw ConfigurationError("\(database.url): cannot read the sign-in throttle's key: \(SharedPostgresDatabase.describe(error))")
        }
    }

    public func failures(username: SignInThrottle.Key?, address: SignInThrottle.Key?, window: Int64, now: Int64) async throws
        -> SignInFailures
    {
        let keys = Self.keys(username: username, address: address)
        guard !keys.isEmpty else { return SignInFailures() }
        return try await database.run("read the sign-in throttle") { client in
            var result = SignInFailures()
            for (kind, key) in keys {
                let rows = try await client.query(
                    "SELECT window_start, failures FROM micro_sign_in_failures WHERE key = \(key) AND window_start > \(now - window)",
                    logger: SharedPostgresDatabase.quiet)
                for try await (start, failures) in rows.decode((Int64, Int32).self) {
                    Self.set(&result, kind, SignInFailures.Count(windowStart: start, failures: Int(failures)))
                }
            }
            return result
        }
    }

    public func recordFailure(username: SignInThrottle.Key?, address: SignInThrottle.Key?, window: Int64, now: Int64) async throws
        -> SignInFailures
    {
        let keys = Self.keys(username: username, address: address)
        guard !keys.isEmpty else { return SignInFailures() }
        let sweep = recorded.withLockedValue { count in
            count += 1
            return count % 1000 == 0
        }
        return try await database.run("count a failed sign-in") { client in
            var result = SignInFailures()
            for (kind, key) in keys {
                // A window that has passed begins anew with this failure.
                let rows = try await client.query("""
                    INSERT INTO micro_sign_in_failures AS f (key, window_start, failures) VALUES (\(key), \(now), 1)
                    ON CONFLICT (key) DO UPDATE SET
                        window_start = CASE WHEN \(now) - f.window_start >= \(window) THEN \(now) ELSE f.window_start END,
                        failures = CASE WHEN \(now) - f.window_start >= \(window) THEN 1 ELSE f.failures + 1 END
                    RETURNING window_start, failures
                    """, logger: SharedPostgresDatabase.quiet)
                for try await (start, failures) in rows.decode((Int64, Int32).self) {
                    Self.set(&result, kind, SignInFailures.Count(windowStart: start, failures: Int(failures)))
                }
            }
            if sweep {
                try await client.query("DELETE FROM micro_sign_in_failures WHERE window_start <= \(now - window)", logger: SharedPostgresDatabase.quiet)
            }
            return result
        }
    }

    public func clear(username: SignInThrottle.Key) async throws {
        let key = Self.bytes("n", username)
        try await database.run("clear a name's failed sign-ins") { client in
            _ = try await client.query("DELETE FROM micro_sign_in_failures WHERE key = \(key)", logger: SharedPostgresDatabase.quiet)
        }
    }

    private static func keys(username: SignInThrottle.Key?, address: SignInThrottle.Key?) -> [(Character, ByteBuffer)] {
        var keys: [(Character, ByteBuffer)] = []
        if let username { keys.append(("n", bytes("n", username))) }
        if let address { keys.append(("a", bytes("a", address))) }
        return keys
    }

    /// A name's and an address's keys never meet: a kind byte comes first.
    private static func bytes(_ kind: Character, _ key: SignInThrottle.Key) -> ByteBuffer {
        ByteBuffer(bytes: [kind.asciiValue!] + key.bytes)
    }

    private static func set(_ result: inout SignInFailures, _ kind: Character, _ count: SignInFailures.Count) {
        if kind == "n" { result.username = count } else { result.address = count }
    }
}
