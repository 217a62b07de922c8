import Foundation
import MicroAuth
import MicroTestSupport
import MicroTesting
import Testing

/// SampleApp with `MICRO_LOG_FORMAT=json`: every line it writes, from start-up to its stop,
/// is a JSON object, and one request's lines share its id.
@Suite struct JsonLogFormatTests {
    @Test func everyLineIsAnObjectAndASignInsLinesShareTheRequestsId() async throws {
        let folder = try TemporaryFolder()
        defer { folder.remove() }
        try folder.writeUsers("credentials.yml", [("user", try Password.hash("secret123", cost: 4), nil)])

        let app = try await SampleAppProcess.start([
            "PORT": "0", "MICRO_ENV": "development", "MICRO_SESSION_SECRET": String(repeating: "s", count: 40),
            "MICRO_CREDENTIALS": folder.file("credentials.yml"), "MICRO_LOG_FORMAT": "json",
        ])
        defer { app.stop() }
        #expect(try await RawSocket.signIn(port: app.port, username: "user", password: "secret123") == "/")
        // A target the access log writes as sent (the parser lets these bytes through): a
        // quote, braces and a backslash that would end the message's string and its object.
        let hostile = "/x\"}{\"level\":\"critical\\"
        let missing = try await RawSocket.get(port: app.port, path: hostile)
        #expect(missing.hasPrefix("HTTP/1.1 404"), "\(missing.prefix(200))")
        try await app.hangUp(until: "Reloaded users from")
        try await app.terminateCleanly()

        var objects: [[String: Any]] = []
        for line in app.log.text.split(separator: "\n") {
            let object = try JSONSerialization.jsonObject(with: Data(line.utf8)) as? [String: Any]
            #expect(object != nil, "not a JSON object: \(line)")
            if let object { objects.append(object) }
        }
        #expect(objects.allSatisfy { $0["time"] is String && $0["level"] is String && $0["message"] is String })
        #expect(objects.contains { ($0["message"] as? String)?.contains("listening on http://127.0.0.1:") == true })
        #expect(objects.contains { $0["message"] as? String == "Stopped." })
        #expect(!objects.contains { $0["level"] as? String == "critical" })
        // The target is in its line whole.
        #expect(objects.contains { ($0["message"] as? String)?.hasPrefix(#"GET /x"}{"level":"critical\ 404 "#) == true }, "\(app.log.text)")

        let signedIn = try #require(objects.first { $0["event"] as? String == "signed_in" }, "\(app.log.text)")
        #expect(signedIn["user"] as? String == "user")
        let id = try #require(signedIn["request_id"] as? String)
        let access = objects.filter { $0["request_id"] as? String == id && ($0["message"] as? String)?.hasPrefix("POST /signin 303") == true }
        #expect(access.count == 1, "\(app.log.text)")
    }

    @Test func anUnknownFormatStopsStartUpNamingTheVariableAndItsValues() throws {
        let run = try CommandRun([], environment: ["PORT": "0", "MICRO_LOG_FORMAT": "xml"])
        #expect(run.status == 1)
        #expect(run.errors == "Micro cannot start: MICRO_LOG_FORMAT is 'xml'; expected text or json.\n", "\(run.errors)")
    }
}
