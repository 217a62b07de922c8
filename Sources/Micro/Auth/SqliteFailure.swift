import VaporCSQLite
import Foundation
import Logging
import Synchronization

/// What SQLite said went wrong, with the file, in words a person can act on.
struct SqliteFailure: Error, CustomStringConvertible {
    /// SQLite's primary result code.
    let code: Int32
    let description: String

    init(_ path: String, _ code: Int32, _ what: String, detail: String? = nil) {
        self.code = code & 0xFF
        description = "\(path): \(what)" + (detail.map { " (SQLite: \($0))" } ?? "") + "."
    }

    /// Another connection holds a lock: a wait that timed out, not damage.
    var isLock: Bool { code == SQLITE_BUSY || code == SQLITE_LOCKED }
}
