import Foundation
import Metrics
import MetricsTestKit
import MicroAuth
import MicroCore
import MicroTestSupport
import MicroTesting
import Prometheus
import Testing

/// The app's metrics through swift-metrics: requests by route pattern and status, their
/// durations, sign-ins by outcome and throttled attempts, recorded by a factory the settings
/// give (never the process-wide one, which can be bootstrapped only once).
@Suite struct MetricsTests {
    private func makeApp(_ metrics: TestMetrics?, publicFolder: String? = nil) -> App {
        let app = testApp(publicFolder: publicFolder) { $0.metricsFactory = metrics }
        app.get("/notes/:id") { request in "note \(request.params["id"] ?? "")" }
        app.get("/broken") { _ -> String in throw HttpError(.internalServerError, "broken on purpose") }
        app.group("/admin") { admin in
            admin.before { request in try request.halt(.forbidden, "no") }
            admin.get("/users") { _ in "users" }
        }
        return app
    }

    private func requests(_ metrics: TestMetrics, _ method: String, _ route: String, _ status: Int) -> Int64 {
        metrics.counterTotal(
            label: "micro_requests_total", dimensions: [("method", method), ("route", route), ("status", String(status))])
    }

    @Test func requestsAreCountedByRoutePatternAndStatusNeverByPath() async throws {
        let folder = try TemporaryFolder(["public/app.css": "body {}"])
        defer { folder.remove() }
        let metrics = TestMetrics()
        let client = TestClient(makeApp(metrics, publicFolder: folder.file("public")))
        for path in ["/notes/1", "/notes/2", "/notes/3", "/nothing/here", "/nothing/else", "/app.css", "/broken", "/admin/users"] {
            _ = try await client.get(path)
        }
        _ = try await client.request(.RAW(value: "BREW"), "/notes/4")

        #expect(requests(metrics, "GET", "/notes/:id", 200) == 3)
        #expect(requests(metrics, "GET", "unmatched", 404) == 2)
        #expect(requests(metrics, "GET", "static", 200) == 1)
        #expect(requests(metrics, "GET", "/broken", 500) == 1)
        // Stopped by the group's filter before the route ran.
        #expect(requests(metrics, "GET", "unmatched", 403) == 1)
        #expect(requests(metrics, "other", "unmatched", 404) == 1)
        let routes = Set(metrics.counters(label: "micro_requests_total").flatMap { $0.dimensions.filter { $0.0 == "route" }.map(\.1) })
        #expect(routes == ["/notes/:id", "unmatched", "static", "/broken"])

        let timer = try metrics.expectTimer("micro_request_duration_seconds", [("method", "GET"), ("route", "/notes/:id")])
        #expect(timer.values.count == 3)
        #expect(timer.values.allSatisfy { $0 >= 0 })
    }

    @Test func withoutAFactoryTheBootstrappedOneRecords() async throws {
        let metrics = TestMetrics()
        // What `MetricsSystem.bootstrap` would install, for this task only.
        try await withMetricsFactory(metrics) {
            let client = TestClient(makeApp(nil))
            _ = try await client.get("/notes/1")
        }
        #expect(requests(metrics, "GET", "/notes/:id", 200) == 1)
    }

    @Test func signInsAreCountedByOutcomeAndThrottledAttemptsByWhatTheThrottleDid() async throws {
        let folder = try TemporaryFolder()
        defer { folder.remove() }
        let metrics = TestMetrics()
        let app = testApp { $0.metricsFactory = metrics }
        var authentication = Authentication(users: try UserStoreKind.yaml.make(in: folder))
        authentication.hasher = PasswordHasher(threads: 1)
        app.use(authentication)
        app.group("/api", answers: .json) { api in
            api.authenticate()
            api.get("/me") { request in request.currentUser?.username ?? "?" }
        }
        let client = TestClient(app)
        func signIns(_ via: String, _ outcome: String) -> Int64 {
            metrics.counterTotal(label: "micro_sign_ins_total", dimensions: [("via", via), ("outcome", outcome)])
        }

        #expect(try await client.post("/signin", form: ["username": "user", "password": "secret123"]).location == "/")
        for _ in 0..<5 { _ = try await client.post("/signin", form: ["username": "ann", "password": "wrong"]) }
        let throttled = try await client.post("/signin", form: ["username": "ann", "password": "ann-password"])
        #expect(throttled.status == .tooManyRequests)
        #expect(signIns("form", "success") == 1)
        #expect(signIns("form", "failure") == 5)
        #expect(signIns("form", "throttled") == 1)
        #expect(metrics.counterTotal(label: "micro_throttled_total", dimensions: [("action", "refused")]) == 1)

        let script = TestClient(app)
        let basic: HttpHeaders = ["Authorization": "Basic " + Data("user:secret123".utf8).base64EncodedString()]
        #expect(try await script.get("/api/me", headers: basic).status == .ok)
        // The same credentials again come from the cache: nothing is checked.
        #expect(try await script.get("/api/me", headers: basic).status == .ok)
        let wrong: HttpHeaders = ["Authorization": "Basic " + Data("user:nope".utf8).base64EncodedString()]
        #expect(try await script.get("/api/me", headers: wrong).status == .unauthorized)
        #expect(signIns("basic", "success") == 1)
        #expect(signIns("basic", "failure") == 1)
    }

    @Test func aSignInTheStoreCannotAnswerIsCountedUnavailable() async throws {
        let metrics = TestMetrics()
        var settings = testApp().settings
        settings.metricsFactory = metrics
        let log = LogRecorder()
        let app = App(settings: settings, logger: log.logger)
        var authentication = Authentication(users: UnreadableUsers())
        authentication.hasher = PasswordHasher(threads: 1)
        app.use(authentication)
        let response = try await TestClient(app).post("/signin", form: ["username": "user", "password": "secret123"])
        #expect(response.status == .serviceUnavailable)
        #expect(metrics.counterTotal(label: "micro_sign_ins_total", dimensions: [("via", "form"), ("outcome", "unavailable")]) == 1)
        #expect(log.messages(at: .error).contains { $0.contains("Sign-in unavailable") })
    }

    @Test func attemptsHeldBehindChecksInFlightAreCountedDelayed() async throws {
        let metrics = TestMetrics()
        let gate = Flag()
        let app = testApp { $0.metricsFactory = metrics }
        var authentication = Authentication(users: GatedUsers(gate: gate))
        authentication.hasher = PasswordHasher(threads: 1)
        app.use(authentication)
        app.group("/api", answers: .json) { api in
            api.authenticate()
            api.get("/me") { request in request.currentUser?.username ?? "?" }
        }
        let wrong: HttpHeaders = ["Authorization": "Basic " + Data("user:nope".utf8).base64EncodedString()]
        func throttled(_ action: String) -> Int64 {
            metrics.counterTotal(label: "micro_throttled_total", dimensions: [("action", action)])
        }
        // Eight wrong guesses at once: five (the username's limit) are checked, held at the
        // store until the gate opens; the other three wait for them, then are refused.
        let statuses = try await withThrowingTaskGroup(of: HttpStatus.self) { group in
            for _ in 0..<8 {
                group.addTask { try await app.respond(method: .GET, uri: "/api/me", headers: wrong).status }
            }
            var delayed = false
            for _ in 0..<500 where !delayed {
                delayed = throttled("delayed") == 3
                try await Task.sleep(for: .milliseconds(10))
            }
            #expect(delayed, "three attempts were not held")
            gate.set()
            return try await group.reduce(into: []) { $0.append($1) }
        }
        #expect(statuses.filter { $0 == .unauthorized }.count == 5)
        #expect(statuses.filter { $0 == .tooManyRequests }.count == 3)
        #expect(throttled("delayed") == 3)
        #expect(throttled("refused") == 3)
    }

    /// What the article "Metrics" shows: the metrics exported for Prometheus from a `/metrics` route.
    @Test func prometheusExportsTheRequestCounts() async throws {
        let registry = PrometheusCollectorRegistry()
        let app = testApp { $0.metricsFactory = PrometheusMetricsFactory(registry: registry) }
        app.get("/notes/:id") { _ in "a note" }
        app.get("/metrics") { request in
            request.response.contentType = "text/plain; version=0.0.4; charset=utf-8"
            return registry.emitToString()
        }
        let client = TestClient(app)
        for id in 1...3 { _ = try await client.get("/notes/\(id)") }
        _ = try await client.get("/nothing")

        let text = try await client.get("/metrics").text
        let lines = text.split(separator: "\n").map(String.init)
        #expect(lines.contains(#"micro_requests_total{method="GET",route="/notes/:id",status="200"} 3"#), "\(text)")
        #expect(lines.contains(#"micro_requests_total{method="GET",route="unmatched",status="404"} 1"#), "\(text)")
        #expect(lines.contains(#"micro_request_duration_seconds_count{method="GET",route="/notes/:id"} 3"#), "\(text)")
        // Sign-ins are Authentication's metrics: an app without it exports none.
        #expect(!text.contains("micro_sign_ins_total"), "\(text)")
    }

    /// A plugin's metrics (Authentication's sign-ins) are made with the app's backend when the
    /// app is built: each series exported at zero before the first sign-in.
    @Test func authenticationsMetricsAreExportedBeforeTheFirstSignIn() async throws {
        let folder = try TemporaryFolder()
        defer { folder.remove() }
        let registry = PrometheusCollectorRegistry()
        let app = testApp { $0.metricsFactory = PrometheusMetricsFactory(registry: registry) }
        app.use(Authentication(users: try UserStoreKind.yaml.make(in: folder)))
        app.get("/metrics") { _ in registry.emitToString() }

        let lines = try await TestClient(app).get("/metrics").text.split(separator: "\n").map(String.init)
        for via in ["form", "basic"] {
            for outcome in ["success", "failure", "throttled", "unavailable"] {
                #expect(lines.contains("micro_sign_ins_total{via=\"\(via)\",outcome=\"\(outcome)\"} 0"))
            }
        }
        #expect(lines.contains(#"micro_throttled_total{action="refused"} 0"#))
    }
}

/// A user store that cannot be read.
private struct UnreadableUsers: UserStore {
    struct Unreadable: Error {}

    func find(username: String) throws -> StoredUser? { throw Unreadable() }
}

/// A store whose look-ups wait for `gate` to open, each as long as the others.
private struct GatedUsers: UserStore {
    let gate: Flag

    func find(username: String) throws -> StoredUser? {
        StoredUser(user: User(username: username), passwordHash: TestHashes.secret123)
    }

    func find(username: String, using hasher: PasswordHasher) async throws -> StoredUser? {
        _ = await gate.wait(upTo: 10)
        return try find(username: username)
    }
}
