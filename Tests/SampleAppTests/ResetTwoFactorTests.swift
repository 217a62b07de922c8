import Foundation
import Micro
import MicroTestSupport
import MicroTesting
import MicroTwoFactor
@testable import SampleApp
import Testing

/// Two-factor sign-in in the sample app (issuer "Micro Tools"), and `reset-two-factor` for a
/// user who lost their phone.
@Suite struct ResetTwoFactorTests {
    private func run(_ arguments: [String]) throws -> (status: Int32, output: String) {
        let process = Process()
        process.executableURL = try SampleAppProcess.binary()
        process.arguments = arguments
        let stdout = Pipe()
        process.standardInput = FileHandle.nullDevice
        process.standardOutput = stdout
        process.standardError = FileHandle.nullDevice
        try process.run()
        let output = stdout.fileHandleForReading.readDataToEndOfFile()
        process.waitUntilExit()
        return (process.terminationStatus, String(decoding: output, as: UTF8.self))
    }

    private func values(of attribute: String, in html: String) -> [String] {
        html.components(separatedBy: attribute + "=\"").dropFirst().compactMap { $0.split(separator: "\"", maxSplits: 1).first.map(String.init) }
    }

    @Test func resetTwoFactorTurnsItOffForAUser() async throws {
        let folder = FileManager.default.temporaryDirectory.appendingPathComponent("micro-2fa-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: folder, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(at: folder) }
        let file = folder.appendingPathComponent("users.db").path
        // One file for the users and the account pages' state, as `serve` keeps them; a long
        // busy timeout, since the two connections take turns on it while the suite runs in parallel.
        let users = try SqliteUserStore(path: file, create: true, busyTimeout: .seconds(15))
        try users.save(username: "ann", passwordHash: try Password.hash("a long unusual phrase", cost: 4), name: "Ann")
        var settings = Settings()
        settings.environment = .test
        settings.accessLog = false
        let app = App(settings: settings, logger: .quietForTests)
        let database = try await Database.sqlite(path: file, busyTimeout: .seconds(15))
        SampleRoutes.install(in: app, users: users, accounts: Accounts(database: database), signInHasher: testSignInHasher)

        let owner = TestClient(app)
        try await owner.signIn("ann", "a long unusual phrase")
        let setup = try await owner.post("/account/two-factor/setup", form: ["current_password": "a long unusual phrase"])
        let secret = try #require(values(of: "data-totp-secret", in: setup.text).first)
        #expect(values(of: "data-otpauth-uri", in: setup.text).first == "otpauth://totp/Micro%20Tools:ann?secret=\(secret)&amp;issuer=Micro%20Tools")
        let totp = Totp(secret: try #require(Base32.decode(secret)))
        let enabled = try await owner.post("/account/two-factor/enable", form: ["code": totp.code(at: Int64(Date().timeIntervalSince1970))])
        #expect(values(of: "data-recovery-code", in: enabled.text).count == 10)
        #expect(try await TestClient(app).post("/signin", form: ["username": "ann", "password": "a long unusual phrase"]).location == "/signin/two-factor")

        let reset = try run(["reset-two-factor", "ANN", "--db", file])
        #expect(reset.status == 0)
        #expect(reset.output.contains("Two-factor sign-in is off for 'ann'"))
        #expect(try await TestClient(app).post("/signin", form: ["username": "ann", "password": "a long unusual phrase"]).location == "/")
        let events = try await owner.get("/account/activity", headers: ["Accept": "application/json"]).text
        #expect(events.contains(#""event":"two_factor_disabled""#))
        #expect(try run(["reset-two-factor", "ann", "--db", file]).output.contains("did not have"))
        #expect(try run(["reset-two-factor", "nobody", "--db", file]).status != 0)
        await database.shutdown()
    }
}
