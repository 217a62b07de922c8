import MicroAuth
import MicroCore
import SQLKit

extension TwoFactorStore {
    /// Keys, in place, the recovery code digests an earlier version kept unkeyed: each becomes
    /// ``RecoveryCodes/keyedPrefix`` and the HMAC of the digest it was, which is what
    /// ``RecoveryCodes/digest(_:of:key:)`` makes of the same code. Each row is swapped only if
    /// it is still the unkeyed one, so instances starting together key it once. How many it keyed.
    @discardableResult
    func keyUnkeyedCodes(with key: DataKey) async throws -> Int {
        try await database.run("key the recovery codes") { sql in
            let rows = try await sql.select().column("username").column("digest").from("micro_recovery_codes")
                .where("digest", .notLike, RecoveryCodes.keyedPrefix + "%").all()
            var keyed = 0
            for row in rows {
                let username = try row.decode(column: "username", as: String.self)
                let digest = try row.decode(column: "digest", as: String.self)
                // Not a digest of any code: left as it is, it matches none either.
                guard let bytes = Base64Url.decode(digest) else { continue }
                let updated = try await sql.update("micro_recovery_codes")
                    .set("digest", to: SQLBind(RecoveryCodes.keyedPrefix + key.recoveryCodeDigest(bytes)))
                    .where("username", .equal, username).where("digest", .equal, digest).returning("username").all()
                keyed += updated.count
            }
            return keyed
        }
    }

    /// One user's sealed secret, with the name it is bound to, to try a key on: nil when no one has a second factor on.
    func anySealedSecret() async throws -> (username: String, sealedSecret: String)? {
        try await database.run("read a second factor") { sql in
            guard let row = try await sql.select().column("username").column("bound_name").column("sealed_secret").from("micro_two_factor").limit(1).first()
            else { return nil }
            let bound = try row.decode(column: "bound_name", as: String?.self)
            return (try bound ?? row.decode(column: "username", as: String.self), try row.decode(column: "sealed_secret", as: String.self))
        }
    }

    /// The users who have it on, at most `limit` of them, for a message.
    func someEnabledUsers(limit: Int) async throws -> [String] {
        try await database.run("list users with a second factor") { sql in
            try await sql.select().column("username").from("micro_two_factor").orderBy("username").limit(limit).all(decodingColumn: "username", as: String.self)
        }
    }
}
