/// A database that cannot do what was asked, in words that name it: `app.db: the database is
/// corrupt`, `postgres://micro@db:5432/micro: relation "notes" does not exist`.
public struct DatabaseError: Error, Sendable, CustomStringConvertible {
    /// What went wrong, starting with which database.
    public var description: String
    /// An error saying what went wrong, starting with which database.
    public init(_ description: String) { self.description = description }
}
