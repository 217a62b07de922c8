import Foundation
import Micro
import MicroTestSupport
import MicroTesting
@testable import SampleApp
import Testing

/// `SampleApp scim-token`, run as an operator would: the token on its last line opens
/// `/scim/v2` of an app over the same table, until `--revoke-all`.
@Suite struct ScimTokenCommandTests {
    private func run(_ arguments: [String], input: String = "") throws -> (status: Int32, output: String) {
        let process = Process()
        process.executableURL = try SampleAppProcess.binary()
        process.arguments = arguments
        let stdin = Pipe(), stdout = Pipe()
        process.standardInput = stdin
        process.standardOutput = stdout
        process.standardError = FileHandle.nullDevice
        try process.run()
        stdin.fileHandleForWriting.write(Data(input.utf8))
        try stdin.fileHandleForWriting.close()
        let output = stdout.fileHandleForReading.readDataToEndOfFile()
        process.waitUntilExit()
        return (process.terminationStatus, String(decoding: output, as: UTF8.self))
    }

    @Test func theTokenOnTheLastLineOpensScimUntilEveryOneIsRevoked() async throws {
        let folder = try TemporaryFolder()
        defer { folder.remove() }
        let file = folder.file("users.db")
        #expect(try run(["add-user", "ann", "--db", file, "--role", "admin", "--cost", "4"], input: "ann-password-1\n").status == 0)
        let made = try run(["scim-token", "--db", file, "--name", "okta"])
        #expect(made.status == 0)
        let token = try #require(made.output.split(separator: "\n").last.map(String.init))
        #expect(ScimToken.isWellFormed(token), "\(made.output)")
        #expect(try run(["scim-token", "--db", file, "--name", "bad\u{202E}name"]).status != 0)
        #expect(try run(["scim-token"]).status != 0)

        let app = isolatedApp()
        let users = try SqliteUserStore(path: file)
        app.use(Authentication(users: users))
        let database = try await Database.sqlite(path: file)
        var accounts = Accounts(database: database)
        accounts.scim = ScimProvisioning()
        app.use(accounts)
        let client = TestClient(app)
        let headers: HttpHeaders = ["Authorization": "Bearer " + token]
        let listed = try await client.get("/scim/v2/Users", headers: headers)
        #expect(listed.status == .ok, "\(listed.text)")
        #expect(listed.text.contains("\"userName\":\"ann\""))

        let revoked = try run(["scim-token", "--db", file, "--revoke-all"])
        #expect(revoked.status == 0)
        #expect(revoked.output.contains("Revoked 1 SCIM token"))
        #expect(try await client.get("/scim/v2/Users", headers: headers).status == .unauthorized)
        await database.shutdown()
        await users.shutdown()
    }
}
