import ArgumentParser
import Foundation
import Micro
import MicroPostgres

/// A ``CommandLineTool``'s `routes`: sets the app up as `serve` does, then prints its pipeline
/// (``App/describe()``) instead of serving: every check, filter, route, error handler and
/// template value, in the order a request meets them, with the file and line that added each.
///
/// Over a throwaway SQLite file rather than the tool's stores: a listing changes nothing, and
/// works where the tool's database does not exist yet or cannot be reached.
struct RoutesCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "routes",
        abstract: "List what the tool does with a request, in order: checks, filters, routes, error handlers, template values, each with its file and line.")

    func run() async throws {
        guard let tool = CommandLineTool.current.withLock({ $0 }) else { throw ExitCode.failure }
        let folder = FileManager.default.temporaryDirectory.appendingPathComponent("micro-routes-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: folder, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(at: folder) }
        var environment = ProcessInfo.processInfo.environment
        environment[AppStores.urlVariable] = nil
        let (app, stores) = await tool.setUpApp(file: folder.appendingPathComponent("listing.db").path, environment: environment)
        print(app.describe(), terminator: "")
        await stores.shutdown()
    }
}
