import Foundation
import Micro

/// The notes, in the app's database (the table `notes`, which the migration below creates):
/// they outlive a restart, and every instance sharing a PostgreSQL database sees the same.
struct NoteStore: Sendable {
    let database: Database

    /// Adds the table's migration to `database`: the app runs it when it starts.
    init(_ database: Database) {
        self.database = database
        database.migrations.add("1 create notes") { sql in
            try await sql.create(table: "notes")
                .column("id", type: .bigint, .primaryKey)
                .column("title", type: .text, .notNull)
                .column("body", type: .text, .notNull)
                .column("severity", type: .int, .notNull)
                .column("author", type: .text, .notNull)
                // Whole seconds since 1970: the same on SQLite and PostgreSQL, and ISO 8601 in
                // JSON once read back as a Date.
                .column("created", type: .bigint, .notNull)
                .run()
        }
    }

    /// A page of the notes, the newest first, of `severity` when given.
    func page(_ paging: Paging, severity: Int?) async throws -> Page<Note> {
        let select = database.sql.select().columns("*").from("notes")
        if let severity { select.where("severity", .equal, severity) }
        return try await select.page(paging, orderedBy: "id", descending: true, decoding: Row.self, key: \.id).map(\.note)
    }

    /// The note whose id is `id` (a path parameter), or a 404.
    func note(_ id: String?) async throws -> Note {
        // Only the id's own spelling: `01` or `+1` is no note's address.
        guard let text = id, let number = Int(text), String(number) == text,
            let row = try await database.sql.select().columns("*").from("notes").where("id", .equal, number).first(decoding: Row.self)
        else { throw HttpError(.notFound, "No such note.") }
        return row.note
    }

    func add(_ draft: NoteDraft, by author: String) async throws -> Note {
        let created = Int64(Date().timeIntervalSince1970)
        let row = try await database.sql.insert(into: "notes")
            .columns("title", "body", "severity", "author", "created")
            .values(SQLBind(draft.title), SQLBind(draft.body ?? ""), SQLBind(draft.severity), SQLBind(author), SQLBind(created))
            .returning("id")
            .first()
        let id = try row?.decode(column: "id", as: Int.self) ?? 0
        return Note(id: id, title: draft.title, body: draft.body ?? "", severity: draft.severity, author: author,
            created: Date(timeIntervalSince1970: TimeInterval(created)))
    }

    /// Removes the note whose id is `id`, or answers 404; the note it was.
    func remove(_ id: String?) async throws -> Note {
        let note = try await note(id)
        try await database.sql.delete(from: "notes").where("id", .equal, note.id).run()
        return note
    }

    /// A note as the table holds it.
    private struct Row: Decodable {
        let id: Int
        let title: String
        let body: String
        let severity: Int
        let author: String
        let created: Int64

        var note: Note {
            Note(id: id, title: title, body: body, severity: severity, author: author, created: Date(timeIntervalSince1970: TimeInterval(created)))
        }
    }
}
