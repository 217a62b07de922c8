/// Something the app reads again while it runs, on `SIGHUP` or ``App/reload()``, without a
/// restart: a users file (credentials.yml), a SQLite file that was replaced.
///
/// Plugins register theirs (authentication its users, when they can be read again); register
/// your own with ``App/addReloadable(_:)``.
public protocol Reloadable: AnyObject, Sendable {
    /// Reads the source again. On a problem, throws it (naming the file and line) and keeps
    /// what it had, so a broken edit never empties a running app.
    func reload() throws
    /// What it holds now, for the log line after a reload: `users from credentials.yml (3 users)`.
    var reloadSummary: String { get }
}

extension App {
    /// Adds `reloadable` to what ``reload()`` (and `SIGHUP` while ``run()`` serves) reads again.
    /// Adding the same object twice adds it once.
    ///
    /// ```swift
    /// let rota = try Rota(file: "rota.yml")      // a Reloadable of the app's own
    /// app.addReloadable(rota)
    /// ```
    public func addReloadable(_ reloadable: any Reloadable) {
        updateReloadables { reloadables in
            guard !reloadables.contains(where: { $0 === reloadable }) else { return }
            reloadables.append(reloadable)
        }
    }

    /// Reads again everything registered with ``addReloadable(_:)``: what `SIGHUP` does while
    /// ``run()`` serves, for apps that embed Micro and reload another way (an admin route, a
    /// file watcher). Each success is logged (`Reloaded users from credentials.yml (3 users)`);
    /// a failure is logged with its file and line, and what was loaded before stays in force.
    /// Tries them all, then throws the failures, if any.
    ///
    /// ```swift
    /// app.post("/admin/reload") { request in
    ///     try request.authenticate()
    ///     try app.reload()
    ///     return "Reloaded."
    /// }
    /// ```
    public func reload() throws(ConfigurationError) {
        var failures: [String] = []
        for reloadable in reloadables {
            do {
                try reloadable.reload()
                logger.info("Reloaded \(reloadable.reloadSummary)")
            } catch {
                let message = (error as? ConfigurationError)?.message ?? "\(error)"
                logger.error("Reload failed, keeping the \(reloadable.reloadSummary): \(message)")
                failures.append(message)
            }
        }
        if !failures.isEmpty { throw ConfigurationError(failures.joined(separator: "\n")) }
    }
}
