// Micro's side of the socket benchmarks (bench/run.sh, bench/signin-load.sh, bench/routes.sh):
// the routes of BenchRoutes, plus the Authentication flow with bench/credentials.yml
// (bench1...bench8, password bench-password, cost 12), or with those users in the PostgreSQL
// database MICRO_DATABASE_URL names (BenchUsers; bench/postgres.sh). App() reads HOST, PORT and MICRO_ENV; the
// scripts set PORT and MICRO_ENV=production and run it from the repository's root. Access
// logging is off, as it is for the raw NIO server (which has none). EXTRA_ROUTES=N defines N
// more routes before /hello (BenchRoutes.installExtraRoutes); GET /last is defined after all.
import BenchRoutes
import Foundation
import Micro

BenchRoutes.requireRepositoryRoot("MicroBench")
let app = App()
let extraRoutes = ProcessInfo.processInfo.environment["EXTRA_ROUTES"] ?? ""
guard let extraCount = extraRoutes.isEmpty ? 0 : Int(extraRoutes), extraCount >= 0 else {
    FileHandle.standardError.write(Data("MicroBench: EXTRA_ROUTES must be a number of routes, not '\(extraRoutes)'.\n".utf8))
    exit(2)
}
BenchRoutes.installExtraRoutes(extraCount, in: app)
BenchRoutes.install(in: app)
try await BenchUsers.install(in: app)
BenchRoutes.installLastRoute(in: app)
try await app.run()
