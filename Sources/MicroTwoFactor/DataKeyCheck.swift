import Foundation
import Logging
import MicroAuth
import MicroCore
import SQLKit

/// A check value of the ``DataKey`` kept in the database beside what it sealed: a start with
/// another `MICRO_DATA_KEY` is found at once, rather than as every user's right code refused as
/// wrong.
struct DataKeyCheck {
    let store: TwoFactorStore

    /// Its table, made when the app starts: one row.
    static let migrations = [
        Migration("micro 6 data key check") { sql in
            try await sql.create(table: "micro_data_key").ifNotExists()
                .column("id", type: .text, .primaryKey(autoIncrement: false))
                .column("check_value", type: .text, .notNull)
                .column("set_at", type: .bigint, .notNull)
                .run()
        },
    ]

    private static let rowId = "data key"

    /// Compares `key` with the one the database knows. The first key is recorded (when users
    /// already have secrets, only if it opens one of them); another key is recorded in its
    /// place when nothing is sealed under the old one. When something is, production refuses
    /// to start, and elsewhere the log says so at error level.
    func verify(_ key: DataKey, environment: Environment, now: Int64, logger: Logger) async throws {
        let value = key.checkValue
        var stored = try await recorded()
        if stored == nil {
            // Secrets sealed before the check value was kept: the key is the one that opens them.
            let sealed = try await store.anySealedSecret()
            if sealed.map({ key.open($0.sealedSecret, context: TwoFactorService.context(of: $0.username)) != nil }) ?? true {
                try await store.database.run("record the data key's check value") { sql in
                    try await sql.insert(into: "micro_data_key").columns("id", "check_value", "set_at")
                        .values(SQLBind(Self.rowId), SQLBind(value), SQLBind(now)).ignoringConflicts().run()
                }
                // Read again: another instance may have recorded another key meanwhile.
                stored = try await recorded()
            }
        }
        if stored == value { return }
        if try await store.anySealedSecret() == nil {
            logger.notice("MICRO_DATA_KEY is not the key this database knew; nothing is sealed under that one, so this key is recorded instead.")
            try await store.database.run("record the data key's check value") { sql in
                try await sql.update("micro_data_key").set("check_value", to: SQLBind(value)).set("set_at", to: SQLBind(now))
                    .where("id", .equal, Self.rowId).run()
            }
            return
        }
        let message = try await mismatch()
        if environment == .production { throw ConfigurationError(message) }
        logger.error("\(message)")
    }

    private func recorded() async throws -> String? {
        try await store.database.run("read the data key's check value") { sql in
            try await sql.select().column("check_value").from("micro_data_key").where("id", .equal, Self.rowId).first()?
                .decode(column: "check_value", as: String.self)
        }
    }

    /// The start-up error: the variable, who is concerned, and the two ways out.
    private func mismatch() async throws -> String {
        let shown = 5
        let users = try await store.someEnabledUsers(limit: shown + 1)
        let names = users.prefix(shown).map { "'\($0)'" }.joined(separator: ", ") + (users.count > shown ? " and others" : "")
        return "MICRO_DATA_KEY is not the key the two-factor secrets in this database were sealed with (users with two-factor sign-in on: \(names)): "
            + "every code of theirs would be refused. Either set MICRO_DATA_KEY back to the key they were sealed with, "
            + "or give those secrets up: turn each user's two-factor sign-in off (\(OperatorCommand.phrase("reset-two-factor", "NAME", otherwise: "Micro's `reset-two-factor` command (MicroCommands)")), or the users page with the old key), "
            + "then start with the new key, which is then recorded."
    }
}
