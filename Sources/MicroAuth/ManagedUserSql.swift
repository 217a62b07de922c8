import Foundation
import MicroCore

/// The statements of a ``ManagedUserStore`` over a `users` table, the same for SQLite and
/// PostgreSQL but for how a row is matched by name; ``UserTable`` binds their parameters
/// (`?1`, `?2`...) in each database's own way.
///
/// A disabled user's hash is kept behind a `!`, as /etc/shadow does, rather than in a new
/// column: the tables of every earlier version hold it as they are (no schema change to
/// make on each SQLite file and PostgreSQL database); no password ever verifies against it,
/// so any code that checks a password refuses the user even without knowing of disabling; and
/// it changes the user's ``CredentialStamp``, so that their sessions end on every instance
/// through the mechanism that already ends them when a password changes. An earlier version
/// of Micro refuses to open a table holding one (a malformed hash): it fails closed.
///
/// The guard against losing the last admin is part of the statement that makes the change
/// (SQLite runs one writer at a time, so the statement sees every change before it);
/// PostgreSQL runs it after locking the table against other writers in the same transaction.
public enum ManagedUserSql {
    /// A statement and its parameters (text, or nil for NULL), numbered from 1.
    public struct Statement: Sendable {
        /// The SQL, with `?1`, `?2`... for the parameters.
        public var sql: String
        /// The parameters.
        public var binds: [String?]
    }

    /// The rows of `role`'s enabled holders, as `alias` names the table: roles are a list
    /// separated by spaces or commas, matched as a whole word (`_` escaped, a LIKE wildcard).
    static func activeHolder(_ alias: String, pattern: Int) -> String {
        "(\(alias).password_hash NOT LIKE '!%' AND (' ' || replace(coalesce(\(alias).roles, ''), ',', ' ') || ' ') LIKE ?\(pattern) ESCAPE '\\')"
    }

    /// True unless the row being changed is the last enabled holder of the role.
    static func keepsAnother(pattern: Int) -> String {
        "(NOT \(activeHolder("users", pattern: pattern)) OR EXISTS (SELECT 1 FROM users AS other WHERE other.username <> users.username AND \(activeHolder("other", pattern: pattern))))"
    }

    static func pattern(_ role: String) -> String {
        "% " + role.replacingOccurrences(of: "\\", with: "\\\\").replacingOccurrences(of: "_", with: "\\_").replacingOccurrences(of: "%", with: "\\%") + " %"
    }

    /// Adds a user unless one of that name (or, through its unique index, of that address) exists.
    public static func add(_ username: String, name: String?, roles: [String], email: String?, hash: String, changeDue: Bool) -> Statement {
        Statement(
            sql: """
                INSERT INTO users (username, password_hash, name, roles, email, password_change_due)
                VALUES (?1, ?2, ?3, ?4, ?5, \(changeDue ? "TRUE" : "FALSE")) ON CONFLICT DO NOTHING
                """,
            binds: [username, hash, name, roles.isEmpty ? nil : roles.joined(separator: " "), email])
    }

    /// Sets the hash, keeping the `!` of a disabled user, and whether it is to be changed.
    public static func setHash(_ username: String, hash: String, changeDue: Bool, match: String) -> Statement {
        Statement(
            sql: """
                UPDATE users SET password_hash = CASE WHEN password_hash LIKE '!%' THEN '!' || ?2 ELSE ?2 END,
                password_change_due = \(changeDue ? "TRUE" : "FALSE") WHERE \(match)
                """,
            binds: [username, hash])
    }

    /// Sets the address (nil: none), unless another user has it in any case.
    public static func setEmail(_ username: String, email: String?, match: String) -> Statement {
        // Two statements rather than `?2 IS NULL OR ...`: PostgreSQL cannot tell the type of a
        // parameter bound to NULL that only `IS NULL` reads.
        guard let email else { return Statement(sql: "UPDATE users SET email = NULL WHERE \(match)", binds: [username]) }
        return Statement(
            sql: """
                UPDATE users SET email = ?2 WHERE \(match) AND NOT EXISTS (
                    SELECT 1 FROM users AS other WHERE other.username <> users.username AND lower(other.email) = lower(?2))
                """,
            binds: [username, email])
    }

    /// Sets the roles; guarded when they leave out `adminRole`.
    public static func setRoles(_ username: String, roles: [String], adminRole: String, match: String) -> Statement {
        let list = roles.isEmpty ? nil : roles.joined(separator: " ")
        if roles.contains(adminRole) {
            return Statement(sql: "UPDATE users SET roles = ?2 WHERE \(match)", binds: [username, list])
        }
        return Statement(sql: "UPDATE users SET roles = ?3 WHERE \(match) AND \(keepsAnother(pattern: 2))", binds: [username, pattern(adminRole), list])
    }

    /// Disables an enabled user, guarded.
    public static func disable(_ username: String, adminRole: String, match: String) -> Statement {
        Statement(
            sql: "UPDATE users SET password_hash = '!' || password_hash WHERE \(match) AND password_hash NOT LIKE '!%' AND \(keepsAnother(pattern: 2))",
            binds: [username, pattern(adminRole)])
    }

    /// Enables a disabled user.
    public static func enable(_ username: String, match: String) -> Statement {
        Statement(sql: "UPDATE users SET password_hash = substr(password_hash, 2) WHERE \(match) AND password_hash LIKE '!%'", binds: [username])
    }

    /// Removes a user, guarded.
    public static func remove(_ username: String, adminRole: String, match: String) -> Statement {
        Statement(sql: "DELETE FROM users WHERE \(match) AND \(keepsAnother(pattern: 2))", binds: [username, pattern(adminRole)])
    }
}
