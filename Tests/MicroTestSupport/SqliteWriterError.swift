/// What SQLite refused a ``SqliteWriter``, in its words.
package struct SqliteWriterError: Error, CustomStringConvertible {
    package var description: String
    package init(_ description: String) { self.description = description }
}
