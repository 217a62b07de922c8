import Foundation
import MicroAuth
import MicroCore
import MicroTestSupport
import MicroTesting
import Testing

/// The README's demo password does not run in production unless a demo is deliberate.
@Suite struct DemoPasswordTests {
    private func makeApp(
        _ environment: Environment, allowDemo: Bool?, variables: [String: String] = [:], log: LogRecorder = LogRecorder()
    ) throws -> (App, TemporaryFolder) {
        let folder = try TemporaryFolder()
        try folder.writeUsers("credentials.yml", [("ann", TestHashes.annPassword, nil), ("user", TestHashes.secret123, nil)])
        var settings = Settings()
        settings.environment = environment
        settings.views = nil
        settings.publicFolder = nil
        settings.sessions.secret = "5f0c9e2a7b1d4863a9e0f7c2b6d1358e4a7c0f9b2e6d1a3c8b5f7e0d2c4a9b61"
        settings.sessions.secretFile = folder.file("secret")
        settings.variables = variables
        let app = App(settings: settings, logger: log.logger)
        var authentication = Authentication(users: try YamlUserStore(file: folder.file("credentials.yml")))
        authentication.allowsDemoUsers = allowDemo
        app.use(authentication)
        app.get("/") { _ in "home" }
        return (app, folder)
    }

    @Test func productionRefusesToStartNamingTheFileTheUserAndTheWaysOut() async throws {
        let (app, folder) = try makeApp(.production, allowDemo: false)
        defer { folder.remove() }
        do {
            _ = try await TestClient(app).get("/")
            Issue.record("production started with the demo password")
        } catch let error as ConfigurationError {
            #expect(error.message.contains(folder.file("credentials.yml")))
            #expect(error.message.contains("'user'"))
            #expect(!error.message.contains("'ann'"))
            #expect(error.message.contains(OperatorCommand.hashPassword()) && error.message.contains("htpasswd -nbBC 12"))
            #expect(error.message.contains("MICRO_ALLOW_DEMO_USERS=1"))
            #expect(!error.message.contains("\n"))
        }
    }

    @Test func aDeliberateDemoStartsWithAWarning() async throws {
        let log = LogRecorder()
        let (app, folder) = try makeApp(.production, allowDemo: true, log: log)
        defer { folder.remove() }
        #expect(try await TestClient(app).get("/").text == "home")
        #expect(log.messages(at: .warning).contains { $0.contains("'user'") && $0.contains("MICRO_ALLOW_DEMO_USERS=1") })
    }

    @Test func developmentStartsAsBefore() async throws {
        let log = LogRecorder()
        let (app, folder) = try makeApp(.development, allowDemo: false, log: log)
        defer { folder.remove() }
        #expect(try await TestClient(app).get("/").text == "home")
        #expect(!log.messages(at: .warning).contains { $0.contains("demo password") })
    }

    /// Authentication reads its own variable from the settings' (`Settings.fromProcess`); the
    /// app's own setting wins over it.
    @Test func theVariableIsReadAndABadValueNamed() async throws {
        let allowed = try makeApp(.production, allowDemo: nil, variables: ["MICRO_ALLOW_DEMO_USERS": "1"])
        defer { allowed.1.remove() }
        #expect(try await TestClient(allowed.0).get("/").text == "home")

        for variables in [[:], ["MICRO_ALLOW_DEMO_USERS": "0"]] {
            let refused = try makeApp(.production, allowDemo: nil, variables: variables)
            defer { refused.1.remove() }
            await #expect(throws: ConfigurationError.self) { try await TestClient(refused.0).get("/") }
        }
        let overridden = try makeApp(.production, allowDemo: false, variables: ["MICRO_ALLOW_DEMO_USERS": "1"])
        defer { overridden.1.remove() }
        await #expect(throws: ConfigurationError.self) { try await TestClient(overridden.0).get("/") }

        // A bad value stops any environment, naming the variable and the value.
        let bad = try makeApp(.development, allowDemo: nil, variables: ["MICRO_ALLOW_DEMO_USERS": "yes"])
        defer { bad.1.remove() }
        do {
            _ = try await TestClient(bad.0).get("/")
            Issue.record("started with MICRO_ALLOW_DEMO_USERS=yes")
        } catch let error as ConfigurationError {
            #expect(error.message.contains("MICRO_ALLOW_DEMO_USERS is 'yes'"))
        }
        #expect(try Settings.fromProcess(["MICRO_ALLOW_DEMO_USERS": "yes"]).variables["MICRO_ALLOW_DEMO_USERS"] == "yes")
    }
}
