/// Typed values that filters compute for the handlers of the same request (Vapor's
/// `Storage`): one slot per key type, gone with the request.
public struct RequestStorage: Sendable {
    private var values: [ObjectIdentifier: any Sendable] = [:]

    /// Empty storage.
    public init() {}

    /// The value kept under `key`; nil when none was set.
    public subscript<Key: RequestStorageKey>(key: Key.Type) -> Key.Value? {
        get { values[ObjectIdentifier(key)] as? Key.Value }
        set { values[ObjectIdentifier(key)] = newValue }
    }
}
