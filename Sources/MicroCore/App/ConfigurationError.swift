/// A mistake in the app's configuration, found at start-up, with what to fix.
public struct ConfigurationError: Error, Sendable, CustomStringConvertible {
    /// What is wrong and where.
    public var message: String

    /// An error with its message.
    public init(_ message: String) { self.message = message }

    public var description: String { message }
}
