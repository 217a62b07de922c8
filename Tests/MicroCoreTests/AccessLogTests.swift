import Foundation
@testable import MicroCore
import MicroTesting
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
}
