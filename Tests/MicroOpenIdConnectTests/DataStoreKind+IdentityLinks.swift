import Micro
import MicroOpenIdConnect
import MicroTestSupport

extension DataStoreKind {
    /// An identity link store of this kind (SQLite in a temporary file, with its database shut
    /// down and its folder removed afterwards), given to `body`.
    func withIdentityLinks(_ body: (any IdentityLinkListing) async throws -> Void) async throws {
        switch self {
        case .memory:
            try await body(MemoryIdentityLinkStore())
        case .sqlite:
            let folder = try TemporaryFolder()
            defer { folder.remove() }
            let database = try await Database.sqlite(path: folder.file("app.db"))
            do { try await body(try await DatabaseIdentityLinkStore(database)) } catch {
                await database.shutdown()
                throw error
            }
            await database.shutdown()
        }
    }
}
