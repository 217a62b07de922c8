// Micro's side of the benchmark: one plain-text route. App() reads HOST, PORT and MICRO_ENV;
// bench/run.sh sets PORT and MICRO_ENV=production. Access logging is off, as it is for the
// raw NIO server (which has none).
import Micro

let app = App()
app.settings.accessLog = false

app.get("/hello") { request in
    request.response.contentType = "text/plain; charset=utf-8"
    return "Hello, World!"
}

try await app.run()
