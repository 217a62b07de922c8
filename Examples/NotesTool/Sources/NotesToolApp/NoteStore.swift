import Foundation
import Micro

/// The notes, in memory: the newest `capacity` are kept, and a restart forgets them all.
actor NoteStore {
    private var notes: [Note] = []
    private var lastId = 0
    private let capacity: Int

    init(capacity: Int = 1_000) {
        self.capacity = capacity
    }

    /// Every note, the newest first.
    func all() -> [Note] { notes.reversed() }

    /// The note whose id is `id` (a path parameter), or a 404.
    func note(_ id: String?) throws -> Note {
        guard let note = notes.first(where: { String($0.id) == id }) else { throw HttpError(.notFound, "No such note.") }
        return note
    }

    func add(_ draft: NoteDraft, by author: String) -> Note {
        lastId += 1
        let note = Note(id: lastId, title: draft.title, body: draft.body ?? "", severity: draft.severity, author: author, created: Date())
        notes.append(note)
        if notes.count > capacity { notes.removeFirst() }
        return note
    }

    func remove(_ id: String?) throws {
        let note = try note(id)
        notes.removeAll { $0.id == note.id }
    }
}
