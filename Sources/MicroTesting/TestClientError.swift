import Foundation
import MicroAuth
import MicroCore
import NIOCore

/// A failure of the test client itself (not of the app).
public struct TestClientError: Error, CustomStringConvertible {
    public var description: String
    init(_ description: String) { self.description = description }
}
