import ArgumentParser
import Foundation
import Micro
import MicroPostgres

/// A ``CommandLineTool``'s `serve`: opens its stores, sets the app up, serves until SIGINT or
/// SIGTERM, closes the stores.
struct ServeCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "serve",
        abstract: "Serve the tool until Ctrl-C (HOST, PORT, MICRO_ENV, MICRO_DATABASE_URL and Micro's other MICRO_* variables).")

    func run() async throws {
        guard let tool = CommandLineTool.current.withLock({ $0 }) else { throw ExitCode.failure }
        let (app, stores) = await tool.setUpApp()
        // A start-up failure (a port in use) exits from inside `run()`, with the stores open:
        // the process ends there.
        try await app.run()
        await stores.shutdown()
    }
}
