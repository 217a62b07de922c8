// Micro's side of the socket benchmarks (bench/run.sh, bench/signin-load.sh): the routes of
// BenchRoutes, plus the Authentication flow with bench/credentials.yml (bench1...bench8,
// password bench-password, cost 12). App() reads HOST, PORT and MICRO_ENV; the scripts set
// PORT and MICRO_ENV=production and run it from the repository's root. Access logging is off,
// as it is for the raw NIO server (which has none).
import BenchRoutes
import Micro

BenchRoutes.requireRepositoryRoot("MicroBench")
let app = App()
BenchRoutes.install(in: app)
app.use(Authentication(users: try YamlUserStore(file: "bench/credentials.yml")))
try await app.run()
