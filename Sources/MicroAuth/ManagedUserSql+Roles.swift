import MicroCore

extension ManagedUserSql {
    /// The roles list of the row as ` a b c ` (commas as spaces, one space at each end), so
    /// that a role is found or replaced as a whole word.
    static let spacedRoles = "(' ' || replace(coalesce(roles, ''), ',', ' ') || ' ')"

    /// Gives the user `role` unless they hold it: one statement, so that two changes at once
    /// (two groups a provider adds the user to) both stand, where reading the roles and
    /// writing them back would lose one.
    public static func addRole(_ username: String, role: String, match: String) -> Statement {
        Statement(
            sql: "UPDATE users SET roles = trim(coalesce(roles, '') || ' ' || ?2) WHERE \(match) AND \(spacedRoles) NOT LIKE ?3 ESCAPE '\\'",
            binds: [username, role, pattern(role)])
    }

    /// Takes `role` from the user, in one statement as ``addRole(_:role:match:)``; guarded
    /// when it is `adminRole`.
    public static func removeRole(_ username: String, role: String, adminRole: String, match: String) -> Statement {
        let guardClause = role == adminRole ? " AND \(keepsAnother(pattern: 3))" : ""
        return Statement(
            sql: "UPDATE users SET roles = \(without(2)) WHERE \(match) AND \(spacedRoles) LIKE ?3 ESCAPE '\\'\(guardClause)",
            binds: [username, role, pattern(role)])
    }

    /// The roles list without the role of parameter `number`, every time it is listed (NULL
    /// when none is left).
    static func without(_ number: Int) -> String {
        replacing(number, with: "' '")
    }

    /// The roles list with every listing of the role of parameter `number` replaced by
    /// `replacement` (an SQL expression that begins and ends with a space), NULL when none is
    /// left. Each separator is doubled first, so that a role listed twice in a row (`a a`)
    /// goes both times, as a single `replace` skips the second, whose leading space the first
    /// match took; the runs of spaces left are then made one (no role holds `<` or `>`).
    static func replacing(_ number: Int, with replacement: String) -> String {
        let doubled = "replace(\(spacedRoles), ' ', '  ')"
        let replaced = "replace(\(doubled), ' ' || ?\(number) || ' ', \(replacement))"
        let single = "replace(replace(replace(\(replaced), ' ', '<>'), '><', ''), '<>', ' ')"
        return "nullif(trim(\(single)), '')"
    }
}
