import MicroCore
import Testing

/// The two kinds of session store, for tests that must hold for both.
package enum SessionStoreKind: String, CaseIterable, CustomTestStringConvertible, Sendable {
    case cookie, memory

    package var testDescription: String { rawValue }

    /// A new store of this kind, or nil for the default (the encrypted cookie).
    package func makeStore() -> (any SessionStore)? {
        switch self {
        case .cookie: nil
        case .memory: MemorySessionStore()
        }
    }
}
