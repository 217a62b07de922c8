import Foundation

/// A folder of its own under the temporary directory, for views and secret files; remove it
/// with ``remove()`` (in a `defer`).
package struct TemporaryFolder {
    package let path: String

    /// A new folder holding `files` (relative path: text).
    package init(_ files: [String: String] = [:]) throws {
        path = FileManager.default.temporaryDirectory.appendingPathComponent("micro-test-\(UUID().uuidString)").path
        try FileManager.default.createDirectory(atPath: path, withIntermediateDirectories: true)
        for (name, text) in files { try write(name, text) }
    }

    /// Writes `text` to `name` (creating its subfolders), and dates the file `modified` seconds
    /// after any earlier version, so a reload sees a change however coarse the file system's clock.
    package func write(_ name: String, _ text: String, modified: Date? = nil) throws {
        let file = path + "/" + name
        let folder = (file as NSString).deletingLastPathComponent
        try FileManager.default.createDirectory(atPath: folder, withIntermediateDirectories: true)
        try Data(text.utf8).write(to: URL(fileURLWithPath: file))
        if let modified {
            try FileManager.default.setAttributes([.modificationDate: modified], ofItemAtPath: file)
        }
    }

    /// A path inside the folder (not created).
    package func file(_ name: String) -> String { path + "/" + name }

    /// Deletes the folder and what it holds.
    package func remove() {
        try? FileManager.default.removeItem(atPath: path)
    }
}
