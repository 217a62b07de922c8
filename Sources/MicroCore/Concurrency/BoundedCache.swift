/// A map shared between threads whose entries and bytes are bounded: the sessions of recently
/// opened cookies (``CookieSessionStore``), the signed-in users recently read from sessions.
///
/// Two generations bound the memory: values go into the current one; when it holds half the
/// entries or half the bytes allowed, it becomes the previous one and the one before is
/// dropped. A value found in the previous generation moves to the current one, so the values
/// still asked for stay, and ones nobody asks for any more (a session renewed, a browser gone)
/// leave within two generations.
public final class BoundedCache<Key: Hashable & Sendable, Value: Sendable>: Sendable {
    // The look-ups are inlinable, and so is what they touch: the caches' values are other
    // modules' types (the signed-in user), and a look-up the compiler cannot specialize for
    // them costs several times a specialized one on every signed-in request.
    @usableFromInline
    struct Generation {
        @usableFromInline var entries: [Key: Value] = [:]
        @usableFromInline var bytes = 0

        @usableFromInline init() {}
    }

    @usableFromInline
    struct State {
        @usableFromInline var current = Generation()
        @usableFromInline var previous = Generation()

        @usableFromInline init() {}
    }

    /// The most entries kept (both generations).
    @usableFromInline let capacity: Int
    /// About the most bytes kept (both generations), as `sizeOf` counts them.
    @usableFromInline let byteLimit: Int
    /// What an entry costs in bytes, near enough.
    @usableFromInline let sizeOf: @Sendable (Key, Value) -> Int
    @usableFromInline let state = Locked(State())

    /// A cache of at most `capacity` entries and about `byteLimit` bytes, `size` telling what
    /// an entry costs.
    public init(capacity: Int, byteLimit: Int, size: @escaping @Sendable (Key, Value) -> Int) {
        self.capacity = capacity
        self.byteLimit = byteLimit
        self.sizeOf = size
    }

    /// The value kept for `key`, if it is still here.
    @inlinable
    public func value(for key: Key) -> Value? {
        let (found, dropped) = state.withLock { state -> (Value?, Generation?) in
            if let value = state.current.entries[key] { return (value, nil) }
            guard let value = state.previous.entries.removeValue(forKey: key) else { return (nil, nil) }
            let size = sizeOf(key, value)
            state.previous.bytes -= size
            return (value, Self.add(key, value, size: size, to: &state, limits: (capacity, byteLimit)))
        }
        _ = dropped  // released here, outside the lock
        return found
    }

    /// Keeps `value` for `key`. The value must follow from the key (a session from its cookie,
    /// a user from their JSON): a key already in the current generation keeps the value it has.
    /// A value larger than a generation is not kept.
    @inlinable
    public func remember(_ value: Value, for key: Key) {
        let size = sizeOf(key, value)
        guard size <= byteLimit / 2 else { return }
        let dropped = state.withLock { state -> Generation? in
            guard state.current.entries[key] == nil else { return nil }
            if let old = state.previous.entries.removeValue(forKey: key) { state.previous.bytes -= sizeOf(key, old) }
            return Self.add(key, value, size: size, to: &state, limits: (capacity, byteLimit))
        }
        _ = dropped
    }

    /// Drops the value kept for `key`, if any: one that no longer holds (an expired check).
    @inlinable
    public func forget(_ key: Key) {
        let dropped = state.withLock { state -> Value? in
            if let old = state.current.entries.removeValue(forKey: key) {
                state.current.bytes -= sizeOf(key, old)
                return old
            }
            guard let old = state.previous.entries.removeValue(forKey: key) else { return nil }
            state.previous.bytes -= sizeOf(key, old)
            return old
        }
        _ = dropped
    }

    /// Adds to the current generation, starting a new one first when it is full; returns the
    /// generation dropped, for the caller to release outside the lock.
    @inlinable
    static func add(
        _ key: Key, _ value: Value, size: Int, to state: inout State, limits: (capacity: Int, bytes: Int)
    ) -> Generation? {
        var dropped: Generation?
        if state.current.entries.count >= max(1, limits.capacity / 2) || state.current.bytes + size > limits.bytes / 2 {
            dropped = state.previous
            state.previous = state.current
            state.current = Generation()
        }
        state.current.entries[key] = value
        state.current.bytes += size
        return dropped
    }

    /// How many entries and bytes are kept (for tests).
    var usage: (entries: Int, bytes: Int) {
        state.withLock { ($0.current.entries.count + $0.previous.entries.count, $0.current.bytes + $0.previous.bytes) }
    }
}
