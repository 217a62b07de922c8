
/// The sessions of the cookies ``CookieSessionStore`` opened recently, by cookie value.
///
/// A browser sends the same cookie with every request until its session changes, and opening
/// one (base64, AES-GCM, decoding) was about 8% of the cost of a rendered page over a socket.
/// Only values that opened are kept, so a forged cookie never enters. Expiry is not cached: the
/// caller checks the session's times on every request, as for a cookie just opened.
///
/// Two generations bound the memory: values go into the current one; when it holds half the
/// entries or half the bytes allowed, it becomes the previous one and the one before is
/// dropped. A value found in the previous generation moves to the current one, so the values
/// that are still being sent stay, and ones no browser sends any more (a session renewed, a
/// browser gone) leave within two generations.
final class OpenedCookieCache: Sendable {
    private struct Generation {
        var entries: [String: SessionData] = [:]
        var bytes = 0
    }

    private struct State {
        var current = Generation()
        var previous = Generation()
    }

    /// The most entries kept (both generations).
    let capacity: Int
    /// About the most bytes kept (both generations), as ``size(of:_:)`` counts them.
    let byteLimit: Int
    private let state = Locked(State())

    init(capacity: Int = 1024, byteLimit: Int = 1 << 20) {
        self.capacity = capacity
        self.byteLimit = byteLimit
    }

    /// The session `value` opened to, if it is still here.
    func session(for value: String) -> SessionData? {
        let (found, dropped) = state.withLock { state -> (SessionData?, Generation?) in
            if let data = state.current.entries[value] { return (data, nil) }
            guard let data = state.previous.entries.removeValue(forKey: value) else { return (nil, nil) }
            let size = Self.size(of: value, data)
            state.previous.bytes -= size
            return (data, Self.add(value, data, size: size, to: &state, limits: (capacity, byteLimit)))
        }
        _ = dropped  // released here, outside the lock
        return found
    }

    /// Keeps `data`, which `value` opened to.
    func remember(_ data: SessionData, for value: String) {
        let size = Self.size(of: value, data)
        guard size <= byteLimit / 2 else { return }
        let dropped = state.withLock { state -> Generation? in
            guard state.current.entries[value] == nil else { return nil }
            if let old = state.previous.entries.removeValue(forKey: value) { state.previous.bytes -= Self.size(of: value, old) }
            return Self.add(value, data, size: size, to: &state, limits: (capacity, byteLimit))
        }
        _ = dropped
    }

    /// Adds to the current generation, starting a new one first when it is full; returns the
    /// generation dropped, for the caller to release outside the lock.
    private static func add(
        _ value: String, _ data: SessionData, size: Int, to state: inout State, limits: (capacity: Int, bytes: Int)
    ) -> Generation? {
        var dropped: Generation?
        if state.current.entries.count >= max(1, limits.capacity / 2) || state.current.bytes + size > limits.bytes / 2 {
            dropped = state.previous
            state.previous = state.current
            state.current = Generation()
        }
        state.current.entries[value] = data
        state.current.bytes += size
        return dropped
    }

    /// What an entry costs, near enough: its cookie value, the session's id and values, and a
    /// share of the tables and string headers.
    static func size(of value: String, _ data: SessionData) -> Int {
        var size = 128 + value.utf8.count + data.id.utf8.count
        for (key, text) in data.values { size += 64 + key.utf8.count + text.utf8.count }
        return size
    }

    /// How many entries and bytes are kept (for tests).
    var usage: (entries: Int, bytes: Int) {
        state.withLock { ($0.current.entries.count + $0.previous.entries.count, $0.current.bytes + $0.previous.bytes) }
    }
}
