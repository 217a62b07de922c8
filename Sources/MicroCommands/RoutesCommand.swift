import ArgumentParser
import Micro

/// A ``CommandLineTool``'s `routes`: sets the app up as `serve` does, then prints its pipeline
/// (``App/describe()``) instead of serving: every check, filter, route, error handler and
/// template value, in the order a request meets them, with the file and line that added each.
struct RoutesCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "routes",
        abstract: "List what the tool does with a request, in order: checks, filters, routes, error handlers, template values, each with its file and line.")

    func run() async throws {
        guard let tool = CommandLineTool.current.withLock({ $0 }) else { throw ExitCode.failure }
        let (app, stores) = await tool.setUpApp()
        print(app.describe(), terminator: "")
        await stores.shutdown()
    }
}
