// The routes both Micro benchmarks measure, so that the in-process figures and the ones over a
// socket are for the same code.
//
// GET /hello  plain text.
// GET /login  starts a session as a browser's would be after its first page: a name and a
//             CSRF secret (the scripts call it once and keep the cookie; wrk sends it as it is).
// GET /page   a Mustache page (bench/views) in a layout, for the session read from the cookie.
import Micro

public enum BenchRoutes {
    static let items = ["Date Conversion", "Data Encoding", "Data Encryption"]

    /// Adds the three routes; the views are bench/views, relative to the repository's root.
    public static func install(in app: App) {
        app.settings.accessLog = false
        app.settings.views = "bench/views"

        app.get("/hello") { request in
            request.response.contentType = "text/plain; charset=utf-8"
            return "Hello, World!"
        }

        app.get("/login") { request in
            request.session["name"] = "Bench User"
            _ = request.csrfToken
            return "signed in"
        }

        app.get("/page") { request in
            try request.render("page", ["title": "Bench page", "name": request.session["name"] ?? "guest", "items": items])
        }
    }
}
