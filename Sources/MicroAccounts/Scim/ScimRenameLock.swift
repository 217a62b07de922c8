/// Lets one SCIM rename run at a time on this instance: a rename reads the resource its id
/// names, renames it and moves the id, and two at once of one resource would each read the
/// name the other is moving. Changes that rename nothing do not wait for it.
actor ScimRenameLock {
    private var busy = false
    private var waiting: [CheckedContinuation<Void, Never>] = []

    /// Runs `work` once no other rename runs, then lets the next one in.
    nonisolated func serialize<T>(_ work: () async throws -> T) async throws -> T {
        await acquire()
        do {
            let result = try await work()
            await release()
            return result
        } catch {
            await release()
            throw error
        }
    }

    private func acquire() async {
        guard busy else {
            busy = true
            return
        }
        await withCheckedContinuation { waiting.append($0) }
    }

    private func release() {
        if waiting.isEmpty { busy = false } else { waiting.removeFirst().resume() }
    }
}
