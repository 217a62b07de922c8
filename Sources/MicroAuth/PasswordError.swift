import CCrypt
import Foundation
import MicroCore

/// A password that cannot be hashed, with the reason.
public struct PasswordError: Error, Sendable, CustomStringConvertible {
    /// What is wrong.
    public var description: String
    init(_ description: String) { self.description = description }
}
