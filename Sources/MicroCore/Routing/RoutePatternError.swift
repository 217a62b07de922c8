/// A route pattern that cannot be compiled, with the reason.
public struct RoutePatternError: Error, Sendable, CustomStringConvertible {
    /// The pattern as written.
    public var pattern: String
    /// What is wrong with it.
    public var reason: String
    public var description: String { "Invalid route pattern \"\(pattern)\": \(reason)." }
}
