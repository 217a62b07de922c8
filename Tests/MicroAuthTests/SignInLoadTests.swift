import Foundation
@testable import MicroAuth
@testable import MicroCore
import MicroTestSupport
import MicroTesting
import Testing

/// Sign-in under parallel load, with hostile input, and with users of mixed bcrypt costs.
@Suite struct SignInLoadTests {
    private func makeApp(
        _ users: any UserStore, hasher: PasswordHasher = PasswordHasher(threads: 2), configure: (inout Authentication) -> Void = { _ in }
    ) -> App {
        let app = isolatedApp()
        var authentication = Authentication(users: users)
        authentication.hasher = hasher
        authentication.passwordCost = 4
        configure(&authentication)
        app.use(authentication)
        app.get("/me") { request in request.currentUser?.username ?? "nobody" }
        return app
    }

    private func parallelSignIns(_ app: App, count: Int, password: @escaping @Sendable (Int) -> String) async throws -> [TestResponse] {
        try await withThrowingTaskGroup(of: TestResponse.self) { group in
            for index in 0..<count {
                group.addTask {
                    let client = TestClient(app)
                    let answer = try await client.post("/signin", form: ["username": "user", "password": password(index)])
                    guard answer.location == "/" else { return answer }
                    // Signed in for real: the next page knows the user.
                    let me = try await client.get("/me")
                    return me.text == "user" ? answer : me
                }
            }
            return try await group.reduce(into: []) { $0.append($1) }
        }
    }

    @Test func eightTabsSigningInAtOnceAreAllSignedIn() async throws {
        let folder = try TemporaryFolder()
        defer { folder.remove() }
        let app = makeApp(try UserStoreKind.yaml.make(in: folder), hasher: PasswordHasher(threads: 1))
        let answers = try await parallelSignIns(app, count: 8) { _ in "secret123" }
        #expect(answers.map(\.location) == Array(repeating: "/", count: 8))
    }

    @Test func thirtyParallelGuessesGetFiveChecksThenA429() async throws {
        let folder = try TemporaryFolder()
        defer { folder.remove() }
        let hasher = PasswordHasher(threads: 2)
        let app = makeApp(try UserStoreKind.yaml.make(in: folder), hasher: hasher)
        let answers = try await parallelSignIns(app, count: 30) { "guess\($0)" }
        #expect(answers.filter { $0.location == "/signin" }.count == 5)
        let refused = answers.filter { $0.status == .tooManyRequests }
        #expect(refused.count == 25)
        #expect(refused.allSatisfy { Int($0.headers.first(name: "Retry-After") ?? "") ?? 0 > 0 })
        #expect(hasher.verifications.load(ordering: .relaxed) == 5)
    }

    /// Sign-in input over its bounds.
    enum Overlong: String, CaseIterable, CustomTestStringConvertible, Sendable {
        case nonAsciiName, name, password
        var testDescription: String { rawValue }
        var form: (username: String, password: String) {
            switch self {
            case .nonAsciiName: (String(repeating: "İ", count: 100_000), "secret123")
            case .name: (String(repeating: "u", count: Authentication.maximumUsernameLength + 1), "secret123")
            case .password: ("user", String(repeating: "p", count: Password.maximumLength + 1))
            }
        }
    }

    @Test(arguments: Overlong.allCases)
    func overlongInputIsRefusedUnreadAndCountsAgainstTheAddress(_ input: Overlong) async throws {
        let (username, password) = input.form
        let folder = try TemporaryFolder()
        defer { folder.remove() }
        let hasher = PasswordHasher(threads: 1)
        let app = makeApp(try UserStoreKind.yaml.make(in: folder), hasher: hasher) { $0.throttleLimits.failuresPerAddress = 3 }
        let client = TestClient(app)
        for _ in 0..<3 {
            let answer = try await client.post("/signin", form: ["username": username, "password": password])
            #expect(answer.location == "/signin")
        }
        #expect(hasher.verifications.load(ordering: .relaxed) == 0)
        let service = try #require(app.authenticationServiceForTests)
        #expect(service.throttle.trackedCount == (0, 1))
        #expect(try await client.post("/signin", form: ["username": "user", "password": "secret123"]).status == .tooManyRequests)
    }

    @Test func aPasswordSharingItsFirst72BytesWithTheRightOneIsRefused() async throws {
        let folder = try TemporaryFolder()
        defer { folder.remove() }
        let right = String(repeating: "r", count: 72)
        try folder.write("users.yml", "username: long\npassword_hash: \(try Password.hash(right, cost: 4))\n")
        let app = makeApp(try YamlUserStore(file: folder.file("users.yml")))
        let client = TestClient(app)
        #expect(try await client.post("/signin", form: ["username": "long", "password": right + "x"]).location == "/signin")
        #expect(try await client.post("/signin", form: ["username": "long", "password": right]).location == "/")
        #expect(!Password.verify(right + "x", against: try Password.hash(right, cost: 4)))
        #expect(throws: PasswordError.self) { try Password.hash(right + "x", cost: 4) }
    }

    @Test func theDummyHashIsMadeAtStartUpAtTheSlowestCost() async throws {
        let folder = try TemporaryFolder()
        defer { folder.remove() }
        let app = makeApp(try folder.yamlUsers(costs: ["fast": 4, "slow": 6]))
        let service = try #require(app.authenticationServiceForTests)
        #expect(service.preparedDummyCosts == [6])
    }

    /// For each user of a store with mixed costs, a wrong password and an unknown name take
    /// the same time (medians within 0.8-1.25 of each other).
    @Test func noUsernameCanBeToldFromItsAnswerTime() async throws {
        let folder = try TemporaryFolder()
        defer { folder.remove() }
        let users = try folder.yamlUsers(costs: ["cheap": 6, "middle": 8, "dear": 10])
        // At the process's own priority: a thread that gives way to everything else would
        // measure the rest of the suite running beside it more than its own work.
        let app = makeApp(users, hasher: PasswordHasher(threads: 1, yielding: false)) {
            $0.throttleLimits.failuresPerUsername = 1000
            $0.throttleLimits.failuresPerAddress = 1000
        }
        let client = TestClient(app)
        let names: [String] = ["nobody", "cheap", "middle", "dear"]
        // Each user's time over an unknown name's in the same round, so that the load of the
        // machine (the rest of the suite runs beside it) weighs on both alike.
        var ratios: [String: [Double]] = [:]
        for attempt in 0..<21 {
            var times: [String: Duration] = [:]
            // Each name in each place in turn: none always follows the same one.
            for name in names[(attempt % 4)...] + names[..<(attempt % 4)] {
                let started = ContinuousClock.now
                let answer = try await client.post("/signin", form: ["username": name, "password": "wrong\(attempt)"])
                times[name] = ContinuousClock.now - started
                #expect(answer.location == "/signin")
            }
            guard attempt > 0 else { continue }
            for user in names.dropFirst() { ratios[user, default: []].append(times[user]! / times["nobody"]!) }
        }
        for user in names.dropFirst() {
            let median = ratios[user]!.sorted()[10]
            #expect((0.8...1.25).contains(median), "\(user): \(median)x an unknown name's time (median of \(ratios[user]!))")
        }
    }

    @Test func aHashOfAnotherCostIsReplacedAtTheNextSignIn() async throws {
        let folder = try TemporaryFolder()
        defer { folder.remove() }
        let users = try UserStoreKind.sqlite.make(in: folder) as! SqliteUserStore
        let app = makeApp(users) { $0.passwordCost = 5 }
        let client = TestClient(app)
        #expect(try await client.post("/signin", form: ["username": "user", "password": "secret123"]).location == "/")
        let stored = try #require(try users.find(username: "user"))
        #expect(Password.cost(of: stored.passwordHash) == 5)
        #expect(Password.verify("secret123", against: stored.passwordHash))
        // The session that upgraded the hash stays signed in; Ann's hash is not touched.
        #expect(try await client.get("/me").text == "user")
        #expect(try users.find(username: "ann")?.passwordHash == TestHashes.annPassword)
    }

    @Test func aFileWithMixedCostsIsReportedOnceNamingTheUsers() throws {
        let folder = try TemporaryFolder()
        defer { folder.remove() }
        let store = try folder.yamlUsers(costs: ["ann": 4, "bob": 5])
        let warning = try #require(store.costWarning(configuredCost: 5))
        #expect(warning.contains("ann") && !warning.contains("bob") && warning.contains("htpasswd -nbBC"))
        // One cost for all, even another than the configured one, is not mixed.
        #expect((try UserStoreKind.yaml.make(in: folder) as! YamlUserStore).costWarning(configuredCost: 12) == nil)

        // The app logs it once, when authentication is installed.
        let log = LogRecorder()
        var settings = Settings()
        settings.environment = .test
        let app = App(settings: settings, logger: log.logger)
        var authentication = Authentication(users: store)
        authentication.passwordCost = 5
        app.use(authentication)
        #expect(log.messages(at: .warning) == [warning])
    }

    @Test(arguments: [3, 32])
    func aPasswordCostBcryptCannotTakeStopsStartUpNamingTheSetting(cost: Int) async throws {
        let folder = try TemporaryFolder()
        defer { folder.remove() }
        let app = testApp()
        var authentication = Authentication(users: try UserStoreKind.sqlite.make(in: folder))
        authentication.passwordCost = cost
        app.use(authentication)
        do {
            _ = try await app.respond(method: .GET, uri: "/signin")
            Issue.record("expected a configuration error")
        } catch let error as ConfigurationError {
            #expect(error.message.contains("Authentication.passwordCost is \(cost)"))
        }
    }
}

extension SignInLoadTests {
    /// A SQLite user of another cost than the configured one signs in from eight tabs at once
    /// and from another device before: the re-hash keeps every one of them signed in.
    @Test func aReHashSignsNobodyOut() async throws {
        let folder = try TemporaryFolder()
        defer { folder.remove() }
        let users = try UserStoreKind.sqlite.make(in: folder) as! SqliteUserStore
        let secret = String(SessionData.randomId().prefix(40))
        func app(cost: Int) -> App {
            let app = makeApp(users) { $0.passwordCost = cost }
            app.settings.sessions.secret = secret
            return app
        }
        // Signed in on another device before, with the hash as it was (an app that re-hashes
        // nothing), then the user opens eight tabs on an app that re-hashes at cost 5.
        let before = app(cost: 4)
        let after = app(cost: 5)
        let device = TestClient(before)
        #expect(try await device.post("/signin", form: ["username": "user", "password": "secret123"]).location == "/")
        let tabs = try await withThrowingTaskGroup(of: String.self) { group in
            for _ in 0..<8 {
                group.addTask {
                    let client = TestClient(after)
                    let answer = try await client.post("/signin", form: ["username": "user", "password": "secret123"])
                    return answer.location == "/" ? try await client.get("/me").text : "refused"
                }
            }
            return try await group.reduce(into: []) { $0.append($1) }
        }
        #expect(tabs == Array(repeating: "user", count: 8))
        #expect(Password.cost(of: try #require(try users.find(username: "user")).passwordHash) == 5)
        let cookie = try #require(device.cookies["micro.session"]?.value)
        let moved = TestClient(after)
        moved.setCookie("micro.session", cookie)
        #expect(try await moved.get("/me").text == "user")
    }
}

extension App {
    /// The authentication service, as requests see it.
    var authenticationServiceForTests: AuthenticationService? {
        (try? makeResponder())?.services.service(AuthenticationService.self)
    }
}
