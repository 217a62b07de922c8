import Foundation
import Mustache

/// A template that is missing or broken, found while rendering.
public struct ViewError: Error, Sendable, CustomStringConvertible {
    /// What is wrong, with the file (and line).
    public var description: String
    init(_ description: String) { self.description = description }
}
