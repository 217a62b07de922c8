import Foundation
import Micro
@testable import MicroAccounts
import MicroPostgres
import MicroTestSupport
import MicroTesting
import NIOConcurrencyHelpers
import Testing

extension MicroPostgresTests {
    /// SCIM ids that outlive renames, in a database two instances share, on SQLite and
    /// PostgreSQL alike.
    @Suite struct ScimIds {
        @Test(arguments: TestDatabaseKind.available)
        func anIdOutlivesRenamesAndGoesWithARemoval(_ kind: TestDatabaseKind) async throws {
            try await kind.with(instances: 2) { (databases: [Database]) async throws in
                for database in databases { try await database.migrate(DatabaseScimStore.migrations) }
                let one = DatabaseScimStore(databases[0]), two = DatabaseScimStore(databases[1])
                #expect(try await one.userIds(of: ["ann"]) == ["ann": "ann"])
                try await DatabaseScimStore.carry("ann", to: "anna", in: databases[0])
                #expect(try await two.username(ofId: "ann") == "anna")
                #expect(try await two.username(ofId: "anna") == nil)
                #expect(try await two.userId(of: "anna") == "ann")
                // A new ann gets an id of her own, the same from either instance.
                let id = try await one.userId(of: "ann")
                #expect(id != "ann")
                #expect(try await two.userId(of: "ann") == id)
                #expect(try await two.username(ofId: id) == "ann")
                try await DatabaseScimStore.carry("anna", to: "hanna", in: databases[1])
                #expect(try await one.username(ofId: "ann") == "hanna")
                try await DatabaseScimStore.forget("hanna", in: databases[0])
                #expect(try await one.username(ofId: "ann") == nil)
                #expect(try await one.username(ofId: id) == "ann")

                try await one.addGroup("ops", now: 1000)
                try await one.setExternalId("g1", of: "Group", "ops")
                try await one.renameGroup("ops", to: "devops")
                #expect(try await two.role(ofId: "ops") == "devops")
                #expect(try await two.groupIds(of: ["devops"]) == ["devops": "ops"])
                #expect(try await two.groups() == ["devops"])
                #expect(try await two.externalId(of: "Group", "devops") == "g1")
                try await two.forgetGroupId(of: "devops")
                #expect(try await one.role(ofId: "ops") == "ops")
            }
        }

        @Test(arguments: TestDatabaseKind.available)
        func anIdAskedAtOnceOnTwoInstancesIsOne(_ kind: TestDatabaseKind) async throws {
            try await kind.with(instances: 2) { (databases: [Database]) async throws in
                for database in databases { try await database.migrate(DatabaseScimStore.migrations) }
                try await DatabaseScimStore.carry("bob", to: "robert", in: databases[0])
                let stores = databases.map(DatabaseScimStore.init)
                let ids = try await withThrowingTaskGroup(of: String.self) { tasks in
                    for index in 0..<16 { tasks.addTask { try await stores[index % 2].userId(of: "bob") } }
                    return try await tasks.reduce(into: Set<String>()) { $0.insert($1) }
                }
                #expect(ids.count == 1)
                #expect(ids.first != "bob")
            }
        }
    }

    /// SCIM renames through two instances over PostgreSQL at once: one name stands, and the
    /// id finds it on both.
    @Suite(.enabled(if: PostgresTestDatabase.available, PostgresTestDatabase.skipNote)) struct ScimRenames {
        @Test func renamesAtOnceThroughTwoInstancesLeaveOneNameAndOneId() async throws {
            try await PostgresTestDatabase.withInstances(2) { _, instances in
                let one = instances[0], two = instances[1]
                try await one.users.save(username: "ann", passwordHash: TestHashes.annPassword, name: nil, roles: ["admin"])
                try await one.database.database.migrate(DatabaseScimStore.migrations)
                let (secret, token) = ScimToken.make(name: "entra", now: Int64(Date().timeIntervalSince1970))
                try await DatabaseScimStore(one.database.database).add(token)
                let apps = [one, two].map { stores in
                    let app = stores.makeApp()
                    var accounts = Accounts(database: stores.database.database)
                    accounts.scim = ScimProvisioning()
                    app.use(accounts)
                    return app
                }
                let headers: HttpHeaders = ["Authorization": "Bearer " + secret, "Content-Type": "application/scim+json"]
                let made = try await TestClient(apps[0]).request(.POST, "/scim/v2/Users", headers: headers, body: Array(#"{"userName":"frank"}"#.utf8))
                #expect(made.status == .created, "\(made.text)")
                let names = (0..<8).map { "name\($0)" }
                let statuses = try await withThrowingTaskGroup(of: HttpStatus.self) { tasks in
                    for (index, name) in names.enumerated() {
                        tasks.addTask {
                            try await TestClient(apps[index % 2]).request(
                                .PUT, "/scim/v2/Users/frank", headers: headers, body: Array(#"{"userName":"\#(name)"}"#.utf8)
                            ).status
                        }
                    }
                    return try await tasks.reduce(into: [HttpStatus]()) { $0.append($1) }
                }
                // A rename that lost the race to one on the other instance is refused, never a 500.
                #expect(statuses.allSatisfy { [.ok, .conflict, .notFound].contains($0) }, "\(statuses)")
                #expect(statuses.contains(.ok))
                var left: [String] = []
                for name in names {
                    let found = try await TestClient(apps[0]).request(.GET, "/scim/v2/Users?filter=userName%20eq%20%22\(name)%22", headers: headers)
                    if found.text.contains(#""totalResults":1"#) { left.append(name) }
                }
                #expect(left.count == 1)
                for app in apps {
                    let read = try await TestClient(app).request(.GET, "/scim/v2/Users/frank", headers: headers)
                    #expect(read.status == .ok, "\(read.text)")
                    #expect(read.text.contains(#""userName":"\#(left.first ?? "")""#))
                    #expect(read.text.contains(#""id":"frank""#))
                }
            }
        }
    }
}
