import Foundation

/// Why a private file could not be made or written (the system's words).
struct PrivateFileError: Error {
    let reason: String
    init(_ reason: String) { self.reason = reason }
}
