import Foundation
@testable import MicroCore
import MicroTestSupport
import Testing

/// Whether a path still names the file a watch holds: a write leaves it so; another file put in
/// its place, even when the first has a second name, or the path removed, does not.
@Suite struct FileWatchTests {
    @Test func aWriteKeepsThePathAndAnotherFileInItsPlaceDoesNot() throws {
        let folder = try TemporaryFolder(["app.db": "one", "other.db": "two", "third.db": "three"])
        defer { folder.remove() }
        let path = folder.file("app.db")
        let watch = try #require(FileWatch(path))
        #expect(watch.isStill(at: path))
        try folder.write("app.db", "one, written again")
        #expect(watch.isStill(at: path))
        #expect(watch.isStill(at: path))

        // A second name for the watched file, then another file renamed over the first name:
        // the watched file keeps a link, and is still told apart.
        try FileManager.default.linkItem(atPath: path, toPath: folder.file("backup.db"))
        #expect(watch.isStill(at: path))
        #expect(rename(folder.file("other.db"), path) == 0)
        #expect(!watch.isStill(at: path))
        #expect(!watch.isStill(at: path))

        let second = try #require(FileWatch(path))
        #expect(second.isStill(at: path))
        try FileManager.default.removeItem(atPath: path)
        #expect(!second.isStill(at: path))
        // Another file at the path again is not the watched one either.
        #expect(rename(folder.file("third.db"), path) == 0)
        #expect(!second.isStill(at: path))
    }

    @Test func aFileThatCannotBeReadHasNoWatch() throws {
        let folder = try TemporaryFolder()
        defer { folder.remove() }
        #expect(FileWatch(folder.file("missing.db")) == nil)
    }
}
