import Micro
import MicroPostgres

extension CommandLineTool {
    /// For a command of the tool's own (a seed, an import, a report): the app as `serve` sets
    /// it up, its stores opened and ``routes`` run, with its migrations done, handed to `body`
    /// without serving; the stores are closed after, whatever `body` throws. A store that
    /// cannot be opened, or a migration that fails, exits as `serve` does, with one line naming
    /// the file or variable.
    ///
    /// ```swift
    /// struct Seed: AsyncParsableCommand {
    ///     @Argument var count: Int
    ///     func run() async throws {
    ///         try await CommandLineTool.withApp { app, stores in
    ///             try await Samples(stores.database).addExamples(count)
    ///         }
    ///     }
    /// }
    /// ```
    ///
    /// Call it from a command in the tool's `commands`, which ``main()`` runs. The app is not
    /// built for serving: a setting only serving needs (a session secret, a port) is not asked.
    public static func withApp<Value: Sendable>(_ body: (App, AppStores) async throws -> Value) async throws -> Value {
        guard let tool = current.withLock({ $0 }) else {
            throw ConfigurationError("CommandLineTool.withApp runs inside a CommandLineTool's own command, which its main() runs.")
        }
        let (app, stores) = await tool.setUpApp()
        do {
            try await app.prepare()
        } catch {
            await stores.shutdown()
            App.exitCannotStart(error)
        }
        let result: Value
        do {
            result = try await body(app, stores)
        } catch {
            await stores.shutdown()
            throw error
        }
        await stores.shutdown()
        return result
    }
}
