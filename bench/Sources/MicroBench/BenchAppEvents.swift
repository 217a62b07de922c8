import Foundation
import Micro

/// `GET /event`: plain text, as `/hello` answers, after recording an app event (the request's
/// address and browser, a kind, a subject, a detail) when `MICRO_BENCH_APP_EVENT=1`; the same
/// answer without it. The two side by side (bench/compare.sh with A_ENV and B_ENV) give what
/// recording costs a route. The events are kept by the account pages (`MICRO_BENCH_ACCOUNTS`:
/// memory, or a SQLite file).
enum BenchAppEvents {
    static func install(in app: App) {
        let records = ProcessInfo.processInfo.environment["MICRO_BENCH_APP_EVENT"] == "1"
        app.get("/event") { request in
            if records { try await request.recordAppEvent("sample_tested", subject: "sample S-17", detail: "passed, 4.2 mg/l") }
            request.response.contentType = "text/plain; charset=utf-8"
            return "Hello, World!"
        }
    }
}
