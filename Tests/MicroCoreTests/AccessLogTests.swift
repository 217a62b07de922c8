import Foundation
import Logging
import MicroCore
import MicroTesting
import Synchronization
import Testing

/// The access log: one line per request, without query strings unless asked.
@Suite struct AccessLogTests {
    @Test func queryStringsAreLeftOutUnlessTheSettingSaysOtherwise() async throws {
        for showsQueries in [false, true] {
            var settings = Settings()
            settings.environment = .test
            settings.accessLogQueries = showsQueries
            let log = LogRecorder()
            let app = App(settings: settings, logger: log.logger)
            app.get("/tools/encode") { _ in "done" }
            _ = try await TestClient(app).get("/tools/encode?input=hunter2&op=b64")
            let lines = log.messages(at: .info).filter { $0.hasPrefix("GET ") }
            #expect(lines.count == 1)
            #expect(lines.first?.hasPrefix("GET /tools/encode 200 ") == !showsQueries, "\(lines)")
            #expect(lines.first?.contains("hunter2") == showsQueries, "\(lines)")
        }
    }

    @Test func jsonLinesCarryTheRequestsPartsAsFields() async throws {
        let lines = Mutex<[[UInt8]]>([])
        var settings = Settings()
        settings.environment = .test
        let json = Logger(label: "micro") { JsonLogHandler(label: $0) { line in lines.withLock { $0.append(line) } } }
        let app = App(settings: settings, logger: json)
        app.get("/tools/encode") { _ in "done" }
        _ = try await TestClient(app).get("/tools/encode?input=hunter2")
        let objects = try lines.withLock { $0 }.map { try #require(try JSONSerialization.jsonObject(with: Data($0)) as? [String: Any]) }
        let access = try #require(objects.first { ($0["message"] as? String)?.hasPrefix("GET ") == true })
        #expect(access["method"] as? String == "GET")
        #expect(access["path"] as? String == "/tools/encode")
        #expect(access["status"] as? Int == 200)
        #expect(access["bytes"] as? Int == 4)
        #expect((access["duration_ms"] as? Double).map { $0 >= 0 } == true)
        #expect(access["request_id"] is String)

        // A text line has them in its message already: no fields repeat them.
        let log = LogRecorder()
        let text = App(settings: settings, logger: log.logger)
        text.get("/x") { _ in "x" }
        _ = try await TestClient(text).get("/x")
        let line = try #require(log.lines(at: .info).first { $0.hasPrefix("GET /x 200 ") })
        #expect(!line.contains("status=") && !line.contains("path="))
    }
}
