import MicroCore

extension ManagedUserSql {
    /// Sets the name pages show (nil: the username capitalized, as for a user added without one).
    public static func setName(_ username: String, name: String?, match: String) -> Statement {
        Statement(sql: "UPDATE users SET name = ?2 WHERE \(match)", binds: [username, name])
    }
}
