// Micro's side of the benchmark. App() reads HOST, PORT and MICRO_ENV; bench/run.sh sets PORT
// and MICRO_ENV=production and runs it from the repository's root. Access logging is off, as
// it is for the raw NIO server (which has none).
//
// GET /hello  plain text.
// GET /login  starts a session as a browser's would be after its first page: a name and a
//             CSRF secret (run.sh calls it once and keeps the cookie; wrk sends it as it is).
// GET /page   a Mustache page in a layout, for the session read from the cookie.
// /signin     the Authentication flow, with bench/credentials.yml (bench / bench-password,
//             cost 12), for bench/signin-load.sh.
import Micro

let app = App()
app.settings.accessLog = false
app.settings.views = "bench/views"
app.use(Authentication(users: try YamlUserStore(file: "bench/credentials.yml")))

app.get("/hello") { request in
    request.response.contentType = "text/plain; charset=utf-8"
    return "Hello, World!"
}

app.get("/login") { request in
    request.session["name"] = "Bench User"
    _ = request.csrfToken
    return "signed in"
}

let items = ["Date Conversion", "Data Encoding", "Data Encryption"]
app.get("/page") { request in
    try request.render("page", ["title": "Bench page", "name": request.session["name"] ?? "guest", "items": items])
}

try await app.run()
