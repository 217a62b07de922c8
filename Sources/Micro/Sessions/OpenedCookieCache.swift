import Synchronization

/// The sessions of the cookies ``CookieSessionStore`` opened most recently, by cookie value.
///
/// A browser sends the same cookie with every request until its session changes, and opening
/// one (base64, AES-GCM, decoding) was about 8% of the cost of a rendered page over a socket.
/// Only values that opened are kept, so a forged cookie never enters; the memory is bounded in
/// entries and bytes, an arbitrary entry making room for a new one. Expiry is not cached: the
/// caller checks the session's times on every request, as for a cookie just opened.
final class OpenedCookieCache: Sendable {
    private struct State {
        var entries: [String: SessionData] = [:]
        var bytes = 0
    }

    /// The most entries kept.
    let capacity: Int
    /// The most bytes kept, counting each entry as twice its cookie value (the value, and the
    /// session it holds, which is no larger).
    let byteLimit: Int
    private let state = Mutex(State())

    init(capacity: Int = 1024, byteLimit: Int = 1 << 20) {
        self.capacity = capacity
        self.byteLimit = byteLimit
    }

    /// The session `value` opened to, if it is still here.
    func session(for value: String) -> SessionData? {
        state.withLock { $0.entries[value] }
    }

    /// Keeps `data`, which `value` opened to.
    func remember(_ data: SessionData, for value: String) {
        let size = 2 * value.utf8.count
        guard size <= byteLimit else { return }
        state.withLock { state in
            guard state.entries[value] == nil else { return }
            while !state.entries.isEmpty, state.entries.count >= capacity || state.bytes + size > byteLimit {
                let evicted = state.entries.remove(at: state.entries.startIndex)
                state.bytes -= 2 * evicted.key.utf8.count
            }
            state.entries[value] = data
            state.bytes += size
        }
    }

    /// How many entries and bytes are kept (for tests).
    var usage: (entries: Int, bytes: Int) {
        state.withLock { ($0.entries.count, $0.bytes) }
    }
}
