extension App {
    /// Adds work the app does once before it answers its first request (a database's
    /// migrations): ``start()`` and ``run()`` do it before they listen, a `TestClient` before its
    /// first request. What it throws stops the app from starting, with its message.
    /// ``pipeline`` lists it as `what` (`migrations`), at the line that added it.
    public func addPreparation(
        _ what: String = "preparation", file: String = #fileID, line: UInt = #line, _ work: @escaping @Sendable () async throws -> Void
    ) {
        definition.withLock { $0.preparations.append(Sited(what: what, site: SourceSite(file: file, line: line), value: work)) }
    }

    /// Does the preparations not yet done (the database's migrations), once, whoever asks
    /// first; the others wait for it. ``start()`` and ``run()`` call it before they listen; a
    /// command that works on the app's stores without serving (a seed, an import) calls it
    /// first. Throws what a preparation threw, as a ``ConfigurationError``.
    public func prepare() async throws(ConfigurationError) {
        let task = definition.withLock { (definition: inout Definition) -> Task<Void, any Error>? in
            guard definition.preparationsStarted < definition.preparations.count else { return definition.preparing }
            let steps = definition.preparations[definition.preparationsStarted...].map(\.value)
            definition.preparationsStarted = definition.preparations.count
            let previous = definition.preparing
            let task = Task {
                if let previous { try await previous.value }
                for step in steps { try await step() }
            }
            definition.preparing = task
            return task
        }
        guard let task else { return }
        do {
            try await task.value
        } catch let error as ConfigurationError {
            throw error
        } catch {
            throw ConfigurationError("\(error)")
        }
    }
}
