import ArgumentParser
import Micro

/// Prints what the app does with a request, in order, with the file and line that added each
/// step (``App/describe()``), set up from the environment as `serve` is.
struct Routes: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        abstract: "List what the app does with a request, in order: checks, filters, routes, error handlers, template values, each with its file and line.")

    func run() async throws {
        let (app, stores) = await Serve.setUpApp()
        print(app.describe(), terminator: "")
        await stores?.shutdown()
    }
}
