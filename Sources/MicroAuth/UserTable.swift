import MicroCore
import SQLKit

/// The statements of a `users` table, written once for SQLite (``SqliteUserStore``) and
/// PostgreSQL (`PostgresUserStore`) over sql-kit, its values always bound. The two differ only
/// in how a row is matched by name (SQLite's `COLLATE NOCASE`, PostgreSQL's unique index on
/// `lower(username)`) and how a row is named in messages (`rowid`, `ctid`).
///
/// What the table holds for a user after a statement that read or changed them is handed to
/// `note`, so that the store's stamps follow.
public struct UserTable: Sendable {
    /// The connection (or pool) the statements run on.
    public let sql: any SQLDatabase
    /// Where the table is, in messages: a file's path, a URL without its password.
    public let source: String
    /// Told what the table now holds for an enforced name (nil: no such user, or disabled).
    let note: @Sendable (String, StoredUser?) -> Void

    /// The table on `sql`; `note` learns what each statement read or changed of a user.
    public init(_ sql: any SQLDatabase, source: String, note: @escaping @Sendable (String, StoredUser?) -> Void) {
        self.sql = sql
        self.source = source
        self.note = note
    }

    var isSqlite: Bool { sql.dialect.name == "sqlite" }

    /// How the statements of ``ManagedUserSql`` match the row of the name `?1`.
    var match: String { isSqlite ? "username = ?1 COLLATE NOCASE" : "lower(username) = ?1" }

    /// A row's identity, as text, for messages and renames.
    private var rowId: String { isSqlite ? "CAST(rowid AS TEXT)" : "ctid::text" }

    func matching(_ key: String) -> SQLQueryString {
        isSqlite ? "username = \(bind: key) COLLATE NOCASE" : "lower(username) = \(bind: key)"
    }

    /// The user of the enforced name `key`, or nil; with `strict`, a malformed row is an
    /// error naming it, else no user.
    public func find(_ key: String, strict: Bool = true) async throws -> StoredUser? {
        let row = try await sql.raw("SELECT \(unsafeRaw: rowId) AS micro_row, * FROM users WHERE " + matching(key)).first()
        let found = try row.flatMap { try user(in: $0, strict: strict) }
        note(key, found)
        return found
    }

    /// Every user; with `strict`, a malformed row is an error naming it, else it is left out
    /// (the user cannot sign in: ``find(_:strict:)`` reports the row).
    public func readAll(strict: Bool) async throws -> [StoredUser] {
        let rows = try await sql.raw("SELECT \(unsafeRaw: rowId) AS micro_row, * FROM users").all()
        return try rows.compactMap { row in
            // A row added by SQL since the table was opened, in a spelling a look-up cannot
            // find (`ÉMILE` beside `émile`; the next opening rewrites or refuses it), gives no
            // user: its stamp would displace that of the row the look-up finds.
            let username = try row.decode(column: "username", as: String?.self) ?? ""
            guard findable(username) else { return nil }
            return try user(in: row, strict: strict)
        }
    }

    /// Whether a look-up of the enforced name finds `username`: the same but for case (ASCII's
    /// alone in SQLite).
    private func findable(_ username: String) -> Bool {
        let lowered = isSqlite ? String(decoding: username.utf8.map { (0x41...0x5A).contains($0) ? $0 + 0x20 : $0 }, as: UTF8.self) : username.lowercased()
        return Username.key(username).utf8.elementsEqual(lowered.utf8)
    }

    /// Every well-formed user, by name, with whether they are disabled (no hashes leave the store).
    public func list() async throws -> [ManagedUser] {
        try await readAll(strict: false).map { ManagedUser(user: $0.user, isDisabled: $0.isDisabled, passwordChangeDue: $0.passwordChangeDue) }.sorted { $0.user.username < $1.user.username }
    }

    /// Rewrites the rows whose name is not in its enforced form; throws, changing nothing,
    /// when two rows are one name or a name is outside the rule.
    public func enforceUsernames() async throws {
        var rows: [UsernameMigration.Row] = []
        for row in try await sql.raw("SELECT \(unsafeRaw: rowId) AS micro_row, username FROM users").all() {
            rows.append(UsernameMigration.Row(id: try row.decode(column: "micro_row", as: String.self), username: try row.decode(column: "username", as: String.self)))
        }
        let renames: [UsernameMigration.Row]
        do throws(UsernameMigration.Problem) {
            renames = try UsernameMigration.renames(of: rows)
        } catch {
            throw UserStoreError("\(source): \(error.description).")
        }
        // Each rename is kept only if the row still holds the name read: another instance
        // starting at once may have renamed it first.
        for rename in renames {
            let old = rows.first { $0.id == rename.id }?.username ?? ""
            try await sql.raw("UPDATE users SET username = \(bind: rename.username) WHERE \(unsafeRaw: rowId) = \(bind: rename.id) AND username = \(bind: old)").run()
        }
    }

    /// Replaces the hash of `key` when it is still `old`; whether it did. With
    /// `clearingChangeDue` (the user chose the new password) the mark of a password set by
    /// someone else goes; a re-hash of the same password at another cost keeps it.
    public func replaceHash(_ key: String, _ old: String, with new: String, clearingChangeDue: Bool = false) async throws -> Bool {
        if clearingChangeDue { try await ensureColumns() }
        let clearing = clearingChangeDue ? ", password_change_due = FALSE" : ""
        let row = try await sql.raw("UPDATE users SET password_hash = \(bind: new)\(unsafeRaw: clearing) WHERE " + matching(key) + " AND password_hash = \(bind: old) RETURNING *").first()
        guard let row else { return false }
        note(key, try user(in: row, strict: false) ?? StoredUser(user: User(username: key, roles: try roles(in: row) ?? []), passwordHash: new))
        return true
    }

    /// Adds the user, or changes their hash, name, roles and (when one is given) address when they exist.
    /// `passwordChangeDue` marks a password someone else chose (``StoredUser/passwordChangeDue``).
    public func save(_ key: String, passwordHash: String, name: String?, roles: [String], email: String? = nil, passwordChangeDue: Bool = false) async throws {
        let list: String? = roles.isEmpty ? nil : roles.joined(separator: " ")
        let conflict = isSqlite ? "username" : "lower(username)"
        try await ensureColumns()
        try await sql.raw("""
            INSERT INTO users (username, password_hash, name, roles, email, password_change_due)
            VALUES (\(bind: key), \(bind: passwordHash), \(bind: name), \(bind: list), \(bind: email), \(unsafeRaw: passwordChangeDue ? "TRUE" : "FALSE"))
            ON CONFLICT (\(unsafeRaw: conflict)) DO UPDATE SET password_hash = excluded.password_hash, name = excluded.name, roles = excluded.roles,
                email = coalesce(excluded.email, users.email), password_change_due = excluded.password_change_due
            """).run()
        note(key, StoredUser(user: User(username: key, name: name, roles: roles, email: email), passwordHash: passwordHash, passwordChangeDue: passwordChangeDue))
    }

    /// The user whose address is `email` in any case, if any: `add-user --email` names them
    /// rather than leave the refusal to the unique index.
    public func username(withEmail email: String) async throws -> String? {
        guard try await hasColumn("email") else { return nil }
        let lowered = String(decoding: email.utf8.map { (0x41...0x5A).contains($0) ? $0 + 0x20 : $0 }, as: UTF8.self)
        return try await sql.raw("SELECT username FROM users WHERE lower(email) = \(bind: lowered)").first()?.decode(column: "username", as: String.self)
    }

    /// Removes the user; whether there was one.
    public func remove(_ key: String) async throws -> Bool {
        let removed = try await sql.raw("DELETE FROM users WHERE " + matching(key) + " RETURNING 1").first() != nil
        note(key, nil)
        return removed
    }

    /// How many users the table holds.
    public func count() async throws -> Int {
        try await sql.raw("SELECT count(*) AS count FROM users").first()?.decode(column: "count", as: Int.self) ?? 0
    }

    /// Runs `statement` (an admin's change to the user `key`); how many rows it changed. The
    /// user is read again afterwards, so that their stamp is what the table holds.
    public func change(_ key: String, _ statement: ManagedUserSql.Statement) async throws -> Int {
        try await ensureColumns()
        let changed = try await sql.raw(query(statement, returning: "1")).all().count
        _ = try await find(key)
        return changed
    }

    /// `statement` with its parameters bound, returning `returning` of each row it changed.
    func query(_ statement: ManagedUserSql.Statement, returning: String) throws -> SQLQueryString {
        var query = SQLQueryString("")
        var rest = Substring(statement.sql)
        while let mark = rest.firstIndex(of: "?") {
            query.appendLiteral(String(rest[..<mark]))
            let digits = rest[rest.index(after: mark)...].prefix { $0.isASCII && $0.isNumber }
            guard let number = Int(digits), statement.binds.indices.contains(number - 1) else {
                throw UserStoreError("\(source): a statement names a parameter it does not have (\(statement.sql)).")
            }
            query.appendInterpolation(bind: statement.binds[number - 1])
            rest = rest[digits.endIndex...]
        }
        query.appendLiteral(String(rest) + " RETURNING " + returning)
        return query
    }

    /// The columns later versions added, with their SQLite types: a SQLite table made before
    /// them gets them at its first change (PostgreSQL's schema adds them at start-up).
    private static let laterColumns = [
        ("roles", "TEXT"), ("email", "TEXT"), ("password_change_due", "BOOLEAN NOT NULL DEFAULT FALSE"),
    ]

    /// Adds to a SQLite table the columns it lacks (``laterColumns``).
    func ensureColumns() async throws {
        guard isSqlite else { return }
        let columns = Set(try await sql.raw("PRAGMA table_info(users)").all().map { try $0.decode(column: "name", as: String.self) })
        for (name, type) in Self.laterColumns where !columns.contains(name) {
            try await sql.raw("ALTER TABLE users ADD COLUMN \(unsafeRaw: name) \(unsafeRaw: type)").run()
        }
        if !columns.contains("email") {
            // Two rows of one address (written by hand) leave the table without the index: the
            // forms still refuse a taken address, and the table stays writable.
            try? await sql.raw("CREATE UNIQUE INDEX IF NOT EXISTS users_email_key ON users (lower(email))").run()
        }
    }

    private func hasColumn(_ name: String) async throws -> Bool {
        guard isSqlite else { return true }
        return try await sql.raw("PRAGMA table_info(users)").all().contains { try $0.decode(column: "name", as: String.self) == name }
    }

    /// The roles of `row`; none where the table has no such column, nil when malformed.
    private func roles(in row: any SQLRow) throws -> [String]? {
        guard row.contains(column: "roles") else { return [] }
        return User.roles(inList: try row.decode(column: "roles", as: String?.self) ?? "")
    }

    /// The user of `row`; with `strict`, a malformed hash, role or address is an error naming
    /// the row, else it gives no user.
    func user(in row: any SQLRow, strict: Bool) throws -> StoredUser? {
        let username = try row.decode(column: "username", as: String?.self) ?? ""
        let problem: String
        if let hash = try row.decode(column: "password_hash", as: String?.self), StoredUser.isValidStoredHash(hash) {
            if let roles = try roles(in: row) {
                let typed = row.contains(column: "email") ? try row.decode(column: "email", as: String?.self) : nil
                let due = row.contains(column: "password_change_due") ? try row.decode(column: "password_change_due", as: Bool?.self) ?? false : false
                let name = try row.decode(column: "name", as: String?.self)
                switch Result(catching: { () throws(MailAddressError) in try User.checkedEmail(typed) }) {
                case .success(let email):
                    let user = User(username: username, name: name, roles: roles, email: email)
                    return StoredUser(user: user, passwordHash: hash, passwordChangeDue: due)
                case .failure(let error):
                    problem = "email: \(error)"
                }
            } else {
                problem = "roles holds a name that is not 1 to 64 lowercase letters, digits, '-' or '_'"
            }
        } else {
            problem = "password_hash is not a bcrypt hash ($2a$, $2b$ or $2y$)"
        }
        guard strict else { return nil }
        let id = try row.decode(column: "micro_row", as: String.self)
        throw UserStoreError("\(source): users row \(id) (user '\(ControlEscapingLogHandler.escape(username))'): \(problem).")
    }

    /// The address a store keeps for `email` (nil for none); else an error naming the store's
    /// `source` and the user `key`.
    public static func address(_ email: String?, of key: String, source: String) throws(UserStoreError) -> String? {
        do throws(MailAddressError) {
            return try User.checkedEmail(email)
        } catch {
            throw UserStoreError("\(source): user '\(key)': email: \(error).")
        }
    }

    /// The enforced form of `username`, once `passwordHash` and `roles` are ones a store may
    /// hold; else an error naming the store's `source`.
    public static func key(_ username: String, passwordHash: String?, roles: [String], source: String) throws(UserStoreError) -> String {
        if let passwordHash, !Password.isValidHash(passwordHash), !StoredUser.isNoPasswordHash(passwordHash) {
            throw UserStoreError("\(source): not a bcrypt hash for user '\(username)'.")
        }
        if let problem = roles.lazy.compactMap(User.problem(withRole:)).first {
            throw UserStoreError("\(source): user '\(username)': \(problem).")
        }
        do throws(UsernameError) {
            return try Username.enforce(username)
        } catch {
            throw UserStoreError("\(source): \(error).")
        }
    }
}
