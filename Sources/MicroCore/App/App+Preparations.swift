extension App {
    /// Adds work the app does once before it answers its first request (a database's
    /// migrations): ``start()`` and ``run()`` do it before they listen, a `TestClient` before its
    /// first request. What it throws stops the app from starting, with its message.
    public func addPreparation(_ work: @escaping @Sendable () async throws -> Void) {
        definition.withLock { $0.preparations.append(work) }
    }

    /// Does the preparations not yet done, once, whoever asks first; the others wait for it.
    func prepare() async throws(ConfigurationError) {
        let task = definition.withLock { (definition: inout Definition) -> Task<Void, any Error>? in
            guard !definition.preparations.isEmpty else { return definition.preparing }
            let steps = definition.preparations
            definition.preparations = []
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
