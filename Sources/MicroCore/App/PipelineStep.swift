/// One step of what the app does with a request, as ``App/pipeline`` lists it: a route, a
/// filter, a check a plugin added, with the file and line that added it.
public struct PipelineStep: Sendable, Equatable, CustomStringConvertible {
    /// When it runs.
    public let stage: PipelineStage
    /// What it is: a route's method and pattern (`GET /notes/:id`), a filter's pattern, a
    /// check's or template value's name.
    public let what: String
    /// Where it was added (`LabTool/main.swift:9`); nil for Micro's own fixed
    /// steps (static files, the CSRF check).
    public let site: SourceSite?

    /// The module that added it: the first part of ``site``'s file (`#fileID` is
    /// `Module/File.swift`).
    public var module: String {
        guard let file = site?.file else { return "MicroCore" }
        return file.split(separator: "/", maxSplits: 1).first.map(String.init) ?? file
    }

    /// One line: stage, what, module and site.
    public var description: String {
        "\(stage.name): \(what) (\(module), \(site.map { "\($0)" } ?? "built in"))"
    }
}
