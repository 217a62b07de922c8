import MicroCore

/// How a users table comes to hold every name in its enforced form (``Username``), so that
/// two spellings of one name cannot both be rows: each store reads its rows, renames those
/// this plan lists, and stops opening when the plan says why it cannot.
public enum UsernameMigration {
    /// A row of a users table: its identity in the table (a rowid, a ctid) and its username.
    public struct Row: Sendable, Equatable {
        /// How the table names the row.
        public var id: String
        /// The username the row holds (or is to hold, in a plan).
        public var username: String

        /// A row.
        public init(id: String, username: String) {
            self.id = id
            self.username = username
        }
    }

    /// Why a table cannot be brought to enforced names, naming its rows.
    public struct Problem: Error, Sendable, CustomStringConvertible {
        /// What is wrong and how to fix it, without the table's place (each store adds it).
        public let description: String
    }

    /// The rows to rename, each with its enforced name. Throws a ``Problem`` for a row outside
    /// the rule, or for rows that are one name (`ÉMILE` and `émile`): a store cannot guess
    /// which of them is the user, so a person must remove or rename one.
    public static func renames(of rows: [Row]) throws(Problem) -> [Row] {
        var owners: [String: Row] = [:]
        var renames: [Row] = []
        for row in rows {
            let enforced: String
            do throws(UsernameError) {
                enforced = try Username.enforce(row.username)
            } catch {
                throw Problem(description: "users row \(row.id): \(error): remove or rename the row")
            }
            if let owner = owners[enforced] {
                throw Problem(description: "users rows \(owner.id) ('\(Username.shown(owner.username))') and \(row.id) "
                    + "('\(Username.shown(row.username))') are one user, '\(enforced)', under the username rule (RFC 8265): "
                    + "remove or rename one of them")
            }
            owners[enforced] = row
            if enforced != row.username { renames.append(Row(id: row.id, username: enforced)) }
        }
        return renames
    }
}
