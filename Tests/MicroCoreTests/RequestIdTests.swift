import Logging
import MicroCore
import MicroTestSupport
import MicroTesting
import Testing

/// Each request has an id: in its answer's `X-Request-Id` and in its log lines, a trusted
/// proxy's when it sent a sound one.
@Suite struct RequestIdTests {
    private func app(trusting proxies: [String] = [], log: LogRecorder? = nil, accessLog: Bool = false) -> App {
        let app = testApp(logger: log?.logger ?? .quietForTests) {
            $0.trustedProxies = proxies
            $0.accessLog = accessLog
        }
        app.get("/id") { request in
            request.logger.warning("working")
            return request.id
        }
        app.get("/fails") { _ -> String in throw HttpError(.badRequest, "No.") }
        return app
    }

    private func id(_ app: App, from peer: String = "127.0.0.1", _ headers: HttpHeaders = [:]) async throws -> (header: String?, body: String) {
        let client = TestClient(app)
        client.remoteAddress = peer
        let answer = try await client.get("/id", headers: headers)
        return (answer.headers.first(name: "X-Request-Id"), answer.text)
    }

    @Test func eachAnswerCarriesItsRequestsIdAndNoTwoAreAlike() async throws {
        let app = app()
        var seen = Set<String>()
        for _ in 0..<50 {
            let (header, body) = try await id(app)
            #expect(header == body)
            #expect(body.wholeMatch(of: /[0-9a-f]{6}-[0-9a-f]+/) != nil, "\(body)")
            seen.insert(body)
        }
        #expect(seen.count == 50)
    }

    @Test func errorsStaticFilesAndRefusalsCarryOneToo() async throws {
        let folder = try TemporaryFolder(["public/app.css": "body {}"])
        defer { folder.remove() }
        let app = testApp(publicFolder: folder.file("public")) { $0.allowedHosts = ["tools.example.com"] }
        let client = TestClient(app)
        for (uri, headers) in [("/fails", [:]), ("/missing", [:]), ("/app.css", [:]), ("/id", ["Host": "evil.example"])] as [(String, HttpHeaders)] {
            let answer = try await client.get(uri, headers: headers)
            #expect(answer.headers["X-Request-Id"].count == 1, "\(uri): \(answer.status)")
        }
    }

    @Test func theLinesARequestLogsCarryItsId() async throws {
        let log = LogRecorder()
        let app = app(log: log, accessLog: true)
        let (_, id) = try await id(app)
        #expect(log.lines(at: .warning) == ["working request_id=\(id)"])
        #expect(log.lines(at: .info).contains { $0.hasPrefix("GET /id 200 ") && $0.hasSuffix(" request_id=\(id)") })
    }

    @Test func aTrustedProxysIdIsKept() async throws {
        let app = app(trusting: ["10.0.0.0/8"])
        for given in ["4c1b2ae39b5bdd0c8e3f7c1a2b3c4d5e", "Root=1-5759e988-bd862e3fe1be46a994272793", "0f8fad5b-d9cb-469f-a165-70867728950e"] {
            let (header, body) = try await id(app, from: "10.1.2.3", ["X-Request-Id": given])
            #expect(header == given && body == given)
        }
    }

    @Test func aClientsOwnIdIsReplaced() async throws {
        // Not from a proxy: a client would choose the id its lines are found by.
        let (header, body) = try await id(app(trusting: ["10.0.0.0/8"]), from: "203.0.113.9", ["X-Request-Id": "chosen-by-client"])
        #expect(header == body && body != "chosen-by-client")
        let (untrusted, _) = try await id(app(), ["X-Request-Id": "chosen-by-client"])
        #expect(untrusted != "chosen-by-client")
    }

    @Test(arguments: [
        "", String(repeating: "a", count: 129), "two words", "line\r\nX-Injected: 1", "quote\"", "ünïcode",
        "e\u{301}", "tab\there", "semi;colon", "comma,list",
    ])
    func aProxysIdThatIsNoPlainTokenIsReplaced(_ given: String) async throws {
        let (header, body) = try await id(app(trusting: ["10.0.0.0/8"]), from: "10.1.2.3", ["X-Request-Id": given])
        #expect(header == body && body != given)
        #expect(body.wholeMatch(of: /[0-9a-f]{6}-[0-9a-f]+/) != nil)
    }

    @Test func theLongestIdAProxyMayGiveIsKept() async throws {
        let given = String(repeating: "a", count: 128)
        let (header, _) = try await id(app(trusting: ["10.0.0.0/8"]), from: "10.1.2.3", ["X-Request-Id": given])
        #expect(header == given)
    }
}
