/// A place in the app's source: `main.swift:12`.
public struct SourceSite: Sendable, Equatable, CustomStringConvertible {
    /// The file, as `#fileID` gives it.
    public var file: String
    /// The line.
    public var line: UInt

    public var description: String { "\(file):\(line)" }
}
