// Micro's side of the socket benchmarks (bench/run.sh, bench/signin-load.sh, bench/routes.sh):
// the routes of BenchRoutes, plus the Authentication flow with bench/credentials.yml
// (bench1...bench8, password bench-password, cost 12), or with those users in the PostgreSQL
// database MICRO_DATABASE_URL names (BenchUsers; bench/postgres.sh). App() reads HOST, PORT and MICRO_ENV; the
// scripts set PORT and MICRO_ENV=production and run it from the repository's root. Access
// logging is off, as it is for the raw NIO server (which has none). EXTRA_ROUTES=N defines N
// more routes before /hello (BenchRoutes.installExtraRoutes); GET /last is defined after all.
// MICRO_BENCH_METRICS=prometheus records Micro's metrics in a Prometheus registry (GET /metrics
// shows it), as the article "Metrics" does; without it nothing is recorded.
// MICRO_BENCH_TOKENS=FOLDER keeps the users in SQLite there, with an API token (BenchTokens).
// GET /event records an app event with MICRO_BENCH_APP_EVENT=1 (BenchAppEvents).
// MICRO_BENCH_ACCESS_LOG=1 turns the access log on, so that MICRO_LOG_FORMAT's cost per line
// can be measured (its output is best sent to /dev/null, as bench/compare.sh does to a file).
import BenchRoutes
import Foundation
import Metrics
import Micro
import Prometheus

BenchRoutes.requireRepositoryRoot("MicroBench")
let registry = PrometheusCollectorRegistry()
switch ProcessInfo.processInfo.environment["MICRO_BENCH_METRICS"] ?? "" {
case "": break
case "prometheus": MetricsSystem.bootstrap(PrometheusMetricsFactory(registry: registry))
case let other:
    FileHandle.standardError.write(Data("MicroBench: MICRO_BENCH_METRICS is 'prometheus' or unset, not '\(other)'.\n".utf8))
    exit(2)
}
let app = App()
let extraRoutes = ProcessInfo.processInfo.environment["EXTRA_ROUTES"] ?? ""
guard let extraCount = extraRoutes.isEmpty ? 0 : Int(extraRoutes), extraCount >= 0 else {
    FileHandle.standardError.write(Data("MicroBench: EXTRA_ROUTES must be a number of routes, not '\(extraRoutes)'.\n".utf8))
    exit(2)
}
BenchRoutes.installExtraRoutes(extraCount, in: app)
BenchRoutes.install(in: app)
if ProcessInfo.processInfo.environment["MICRO_BENCH_ACCESS_LOG"] == "1" { app.settings.accessLog = true }

// A synchronous main that parks its thread until the server stops, with no top-level `await`
// (BenchUsers is installed in the task): an async main ends in `dispatchMain()`, where Debian's
// valgrind (3.19) crashes, and bench/callgrind.sh runs this server under valgrind. The server
// runs on its event loops either way.
let stopped = DispatchSemaphore(value: 0)
Task.detached {
    do {
        if let folder = BenchTokens.folder { try await BenchTokens.install(in: app, folder: folder) } else { try await BenchUsers.install(in: app) }
        BenchAppEvents.install(in: app)
        BenchRoutes.installLastRoute(in: app)
        app.get("/metrics") { _ in registry.emitToString() }
        try await app.run()
    } catch {
        FileHandle.standardError.write(Data("MicroBench: \(error)\n".utf8))
        exit(1)
    }
    stopped.signal()
}
stopped.wait()
