import Micro
import Testing
@testable import NotesToolApp

@Suite struct NoteStoreTests {
    @Test func theOldestNoteGoesWhenTheStoreIsFull() async throws {
        let store = NoteStore(capacity: 2)
        for title in ["one", "two", "three"] { _ = await store.add(NoteDraft(title: title, severity: 3), by: "oncall") }
        #expect(await store.all().map(\.title) == ["three", "two"])
        await #expect(throws: HttpError.self) { try await store.note("1") }
        #expect(try await store.note("3").title == "three")
        await #expect(throws: HttpError.self) { try await store.note("03") }
    }
}
