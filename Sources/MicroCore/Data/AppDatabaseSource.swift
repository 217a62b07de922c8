/// What holds the app's database, for the plugins that keep their tables beside the app's:
/// they take any source, so that the module that opens the database and the plugins that use
/// it need not know each other.
public protocol AppDatabaseSource: Sendable {
    /// The app's database.
    var database: Database { get }
}
