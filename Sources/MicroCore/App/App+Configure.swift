import Foundation

extension App {
    /// Runs a start-up step (reading users, opening a database) the way Sinatra's `configure`
    /// block does: when it throws, the app does not start: the reason is printed as one line
    /// (`Micro cannot start: credentials.yml: ...`) and the process exits with status 1,
    /// without a crash trace. A top-level `try` in `main.swift` would crash instead.
    ///
    /// ```swift
    /// let rota = app.configure { try Rota(file: "rota.yml") }
    /// ```
    public func configure<T>(_ step: () throws -> T) -> T {
        do {
            return try step()
        } catch {
            Self.exitCannotStart(error)
        }
    }

    /// A start-up step that waits (opening a database over the network); see ``configure(_:)``.
    public func configure<T>(_ step: () async throws -> T) async -> T {
        do {
            return try await step()
        } catch {
            Self.exitCannotStart(error)
        }
    }

    /// Prints why the app cannot start, as one line, and exits with status 1.
    package static func exitCannotStart(_ error: any Error) -> Never {
        let reason = (error as? ConfigurationError)?.message ?? String(describing: error)
        FileHandle.standardError.write(Data("Micro cannot start: \(reason)\n".utf8))
        exit(1)
    }
}
