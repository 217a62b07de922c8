import Crypto
import Foundation

/// A session that could not be kept, with the reason.
public struct SessionError: Error, Sendable, CustomStringConvertible {
    /// What went wrong.
    public var description: String
    init(_ description: String) { self.description = description }
}
