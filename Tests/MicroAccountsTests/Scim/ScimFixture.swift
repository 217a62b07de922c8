import Foundation
import Logging
import Micro
@testable import MicroAccounts
import MicroAuth
import MicroCore
import MicroTestSupport
import MicroTesting
import Testing

/// An app with SCIM on over a SQLite users table (`ann` an admin, `user` not, both with a
/// password) and a SCIM token, and the calls its tests make; `managesAdmins` as
/// ``ScimProvisioning/managesAdmins``.
struct ScimFixture {
    let app: App
    let users: SqliteUserStore
    let database: Database
    let folder: TemporaryFolder
    let token: String
    let clock: TestClock

    static func make(logger: Logger = .quietForTests, managesAdmins: Bool = false) async throws -> ScimFixture {
        let folder = try TemporaryFolder()
        let clock = TestClock()
        let app = isolatedApp(logger: logger) { $0.clock = { clock.now } }
        let users = try SqliteUserStore(path: folder.file("users.db"), create: true)
        try users.save(username: "ann", passwordHash: TestHashes.annPassword, name: "Ann Smith", roles: ["admin"])
        try users.save(username: "user", passwordHash: TestHashes.secret123, name: nil)
        var authentication = Authentication(users: users)
        authentication.hasher = PasswordHasher(threads: 1)
        authentication.passwordCost = 4
        app.use(authentication)
        let database = try await Database.sqlite(path: folder.file("app.db"))
        var accounts = Accounts(database: database)
        var scim = ScimProvisioning()
        scim.managesAdmins = managesAdmins
        accounts.scim = scim
        app.use(accounts)
        app.get("/me") { request in ["user": try request.authenticate().username] }
        try await database.migrate(DatabaseScimStore.migrations)
        let (secret, token) = ScimToken.make(name: "okta", now: Int64(clock.now.timeIntervalSince1970))
        try await DatabaseScimStore(database).add(token)
        return ScimFixture(app: app, users: users, database: database, folder: folder, token: secret, clock: clock)
    }

    func close() async {
        await database.shutdown()
        folder.remove()
    }

    /// A client of the provider's, from its own address.
    func client(address: String = "192.0.2.50") -> TestClient {
        let client = TestClient(app)
        client.remoteAddress = address
        return client
    }

    /// Sends `body` (JSON text) to `path` with the token (or `bearer`), as `type`.
    @discardableResult
    func send(
        _ method: HttpMethod, _ path: String, _ body: String? = nil, bearer: String? = nil, type: String = "application/scim+json",
        client: TestClient? = nil
    ) async throws -> TestResponse {
        var headers: HttpHeaders = ["Authorization": "Bearer " + (bearer ?? token), "Accept": "application/scim+json"]
        if body != nil { headers.add(name: "Content-Type", value: type) }
        return try await (client ?? self.client()).request(method, path, headers: headers, body: Array((body ?? "").utf8))
    }

    /// The body of `response` as JSON.
    static func json(_ response: TestResponse) throws -> [String: Any] {
        try #require(try JSONSerialization.jsonObject(with: Data(response.body)) as? [String: Any], "\(response.text)")
    }

    /// The `scimType` and `status` of an error answer, checking its schema and content type.
    static func error(_ response: TestResponse) throws -> (status: String?, scimType: String?) {
        #expect(response.contentType?.hasPrefix("application/scim+json") == true, "\(response.text)")
        let body = try json(response)
        #expect((body["schemas"] as? [String]) == ["urn:ietf:params:scim:api:messages:2.0:Error"])
        #expect((body["detail"] as? String)?.isEmpty == false)
        return (body["status"] as? String, body["scimType"] as? String)
    }

    /// The user the store holds now.
    func stored(_ name: String) throws -> StoredUser? {
        try users.find(username: name)
    }

    /// The audit's events of `username`, newest first.
    func events(of username: String) async throws -> [ActivityEvent] {
        try await DatabaseActivityLog(database).events(of: username, offset: 0, limit: 100)
    }
}
