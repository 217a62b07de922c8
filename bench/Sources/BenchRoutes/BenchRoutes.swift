// The routes both Micro benchmarks measure, so that the in-process figures and the ones over a
// socket are for the same code.
//
// GET /hello  plain text.
// GET /login  starts a session as a browser's would be after its first page: a name and a
//             CSRF secret (the scripts call it once and keep the cookie; wrk sends it as it is).
// GET /page   a Mustache page (bench/views) in a layout, for the session read from the cookie
//             (its list: PAGE_ITEMS items, 3 unless set):
//             the signed-in user's (POST /signin, where the app has Authentication), or the
//             /login shortcut's; without either, a redirect to /signin.
import Foundation
import Micro

public enum BenchRoutes {
    /// The list `/page` shows: three items, or PAGE_ITEMS (bench/growth.sh), the same list as
    /// bench/peers' Hummingbird app makes of it.
    static let items = pageItems(Int(ProcessInfo.processInfo.environment["PAGE_ITEMS"] ?? "") ?? 3)

    /// The first `count` of the three tools, then "Item 4", "Item 5", ...
    public static func pageItems(_ count: Int) -> [String] {
        let tools = ["Date Conversion", "Data Encoding", "Data Encryption"]
        return (0..<max(0, count)).map { $0 < tools.count ? tools[$0] : "Item \($0 + 1)" }
    }

    /// What the `/page` route passes to its template, besides the user's name.
    public static func pageValues(name: String) -> [String: Any] {
        ["title": "Bench page", "name": name, "items": items]
    }

    /// Stops `tool` with a message naming what is missing, and exit status 1, unless it runs
    /// from the repository's root, where the benchmarks find `bench/views` and
    /// `bench/credentials.yml` (otherwise the first request or the user store would fail
    /// with a trap).
    public static func requireRepositoryRoot(_ tool: String) {
        let needed = ["bench/views/page.mustache", "bench/views/layout.mustache", "bench/credentials.yml"]
        let missing = needed.filter { !FileManager.default.isReadableFile(atPath: $0) }
        guard !missing.isEmpty else { return }
        let folder = FileManager.default.currentDirectoryPath
        FileHandle.standardError.write(Data("\(tool) cannot start: \(missing.joined(separator: ", ")) not found from \(folder); run it from the repository's root.\n".utf8))
        exit(1)
    }

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
            // For a signed-in user (POST /signin, as bench/peers/run.sh does), or for the /login
            // shortcut's session; anyone else goes to the sign-in page.
            guard let name = request.currentUser?.name ?? request.session["name"] else {
                try request.redirect(to: "/signin")
            }
            return try request.render("page", pageValues(name: name))
        }
    }
}
