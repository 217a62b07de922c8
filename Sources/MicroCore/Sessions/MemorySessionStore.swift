/// Keeps sessions in the server's memory; the cookie holds only a random id. Sessions can be
/// revoked (``destroy(id:)``, or ``destroyAll()``), and are lost when the process stops.
///
/// Memory is bounded: beyond `capacity` sessions, the least recently renewed one is dropped.
public final class MemorySessionStore: SessionStore {
    private let sessions = Locked<[String: SessionData]>([:])
    /// The most sessions kept at once.
    public let capacity: Int

    /// A store of at most `capacity` sessions.
    public init(capacity: Int = 10_000) {
        precondition(capacity > 0, "capacity must be positive")
        self.capacity = capacity
    }

    public func load(cookieValue: String) -> SessionData? {
        // Ids are base64url: anything else names no session, so that a spelling equal to an id
        // only by canonical equivalence (U+212A KELVIN SIGN for "K") finds nothing.
        guard Base64Url.isAlphabet(cookieValue) else { return nil }
        return sessions.withLock { $0[cookieValue] }
    }

    public func save(_ data: SessionData) throws -> String {
        sessions.withLock { sessions in
            if sessions[data.id] == nil, sessions.count >= capacity,
                let oldest = sessions.min(by: { $0.value.lastSeen < $1.value.lastSeen })?.key
            {
                sessions[oldest] = nil
            }
            sessions[data.id] = data
        }
        return data.id
    }

    public func destroy(id: String) {
        _ = sessions.withLock { $0.removeValue(forKey: id) }
    }

    /// Forgets every session: everyone is signed out.
    public func destroyAll() {
        sessions.withLock { $0.removeAll() }
    }

    /// How many sessions are kept now.
    public var count: Int { sessions.withLock { $0.count } }
}
