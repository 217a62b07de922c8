#if Postgres
extension AppStores {
    /// Where an app's users are.
    public enum Users: Sendable {
        /// The database's `users` table, created when missing: users an admin manages from the
        /// users page and the commands.
        case table
        /// A YAML file (`credentials.yml`), edited by hand and reloaded on SIGHUP.
        case yaml(String)
    }
}
#endif
