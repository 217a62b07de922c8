import Testing

/// Where a store with a memory twin keeps its rows, for tests that must hold for both: in
/// memory, or in a SQLite file (``TemporaryFolder``).
package enum DataStoreKind: String, CaseIterable, CustomTestStringConvertible, Sendable {
    case memory, sqlite

    package var testDescription: String { rawValue }
}
