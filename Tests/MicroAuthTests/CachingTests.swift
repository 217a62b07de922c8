import Foundation
import MicroAuth
import MicroCore
import MicroTestSupport
import MicroTesting
import Testing

/// Caches never keep what belongs to one session: the rules of `SecurityHeaders` for
/// `Cache-Control` and `Vary`, one test each.
@Suite struct CachingTests {
    private static let privateDefault = "private, max-age=0, must-revalidate"

    /// An app with sign-in (user / secret123), a rendered home page, and routes for each rule.
    private func makeApp(views: TemporaryFolder, users: TemporaryFolder, publicFolder: String? = nil) throws -> App {
        let app = testApp(publicFolder: publicFolder) { $0.views = views.path }
        var authentication = Authentication(users: try UserStoreKind.yaml.make(in: users))
        authentication.hasher = PasswordHasher(threads: 1)
        app.use(authentication)
        app.get("/") { request in try request.render("index") }
        app.get("/public") { request in
            request.response.headers.add(name: "Cache-Control", value: "public, max-age=60")
            return "the same for everyone"
        }
        app.get("/public-with-cookie") { request in
            request.response.headers.add(name: "Cache-Control", value: "public, max-age=60")
            request.session["seen"] = "yes"
            return "sets the session cookie"
        }
        app.get("/reads-session") { request in
            request.response.headers.add(name: "Cache-Control", value: "public, max-age=60")
            request.response.headers.add(name: "Vary", value: "Accept-Encoding")
            return "seen: \(request.session["seen"] ?? "no")"
        }
        app.get("/theme") { request in
            request.response.setCookie(Cookie(name: "theme", value: "dark", maxAge: 3600))
            return "theme set"
        }
        app.get("/away") { request in try request.redirect(to: "/") }
        app.get("/remembering") { request in
            request.session["back"] = "/remembering"
            try request.redirect(to: "/signin")
        }
        return app
    }

    private func templates() throws -> TemporaryFolder {
        try TemporaryFolder([
            "layout.mustache": "<html>{{#flashMessages}}<p>{{message}}</p>{{/flashMessages}}{{{yield}}}</html>",
            "index.mustache": "<h1>{{#signedIn}}Hi {{currentUser.name}}{{/signedIn}}{{^signedIn}}Welcome{{/signedIn}}</h1>",
            "signin.mustache": "<form method=\"post\">{{{csrfField}}}</form>",
        ])
    }

    @Test func theSignInPageIsNotStored() async throws {
        let (views, users) = (try templates(), try TemporaryFolder())
        defer { views.remove(); users.remove() }
        let client = TestClient(try makeApp(views: views, users: users))
        // The first visit starts the session the form's token belongs to.
        let first = try await client.get("/signin")
        #expect(first.setCookieHeader() != nil)
        #expect(first.headers["Cache-Control"] == ["no-store"])
        // Later visits set no cookie, but show the session's token.
        let again = try await client.get("/signin")
        #expect(again.setCookieHeader() == nil)
        #expect(again.headers["Cache-Control"] == [Self.privateDefault])
        #expect(again.headers["Vary"] == ["Cookie"])
    }

    @Test func aRenderedPageIsPrivateAndVariesByCookie() async throws {
        let (views, users) = (try templates(), try TemporaryFolder())
        defer { views.remove(); users.remove() }
        let client = TestClient(try makeApp(views: views, users: users))
        // Signed out, no cookie: rendering read the session (flash, token, user), an empty one.
        let home = try await client.get("/")
        #expect(home.text.contains("Welcome"))
        #expect(home.setCookieHeader() == nil)
        #expect(home.headers["Cache-Control"] == [Self.privateDefault])
        #expect(home.headers["Vary"] == ["Cookie"])
        // Signed in: the same path shows another body, and is never stored.
        let signIn = try await client.post("/signin", form: ["username": "user", "password": "secret123"])
        #expect(signIn.status == .seeOther)
        #expect(signIn.headers["Cache-Control"] == ["no-store"])
        let signedIn = try await client.get("/")
        #expect(signedIn.text.contains("Hi User"))
        #expect(signedIn.headers["Cache-Control"] == ["no-store"])
        #expect(signedIn.headers["Vary"] == ["Cookie"])
    }

    @Test func aRoutesOwnCacheControlIsKept() async throws {
        let (views, users) = (try templates(), try TemporaryFolder())
        defer { views.remove(); users.remove() }
        let client = TestClient(try makeApp(views: views, users: users))
        let page = try await client.get("/public")
        #expect(page.headers["Cache-Control"] == ["public, max-age=60"])
        #expect(page.headers["Vary"] == [])
        // A route that reads the session keeps its own too, with Vary naming the cookie as well.
        let reading = try await client.get("/reads-session")
        #expect(reading.headers["Cache-Control"] == ["public, max-age=60"])
        #expect(reading.headers[canonicalForm: "Vary"].map(String.init) == ["Accept-Encoding", "Cookie"])
    }

    @Test func aSessionCookieForcesNoStore() async throws {
        let (views, users) = (try templates(), try TemporaryFolder())
        defer { views.remove(); users.remove() }
        let client = TestClient(try makeApp(views: views, users: users))
        let response = try await client.get("/public-with-cookie")
        #expect(response.setCookieHeader() != nil)
        #expect(response.headers["Cache-Control"] == ["no-store"])
        // So does any other cookie, and the cookie that deletes a session.
        let theme = try await client.get("/theme")
        #expect(theme.setCookieHeader("theme") != nil)
        #expect(theme.headers["Cache-Control"] == ["no-store"])
        client.setCookie(sessionCookie, "forged")
        let stale = try await client.get("/public")
        #expect(stale.setCookieHeader()?.contains("Max-Age=0") == true)
        #expect(stale.headers["Cache-Control"] == ["no-store"])
    }

    @Test func redirectsAndErrorPagesFollowTheSameRules() async throws {
        let (views, users) = (try templates(), try TemporaryFolder())
        defer { views.remove(); users.remove() }
        let app = try makeApp(views: views, users: users)
        let client = TestClient(app)
        let away = try await client.get("/away")
        #expect(away.status == .found)
        #expect(away.headers["Cache-Control"] == [Self.privateDefault])
        let remembering = try await client.get("/remembering")
        #expect(remembering.setCookieHeader() != nil)
        #expect(remembering.headers["Cache-Control"] == ["no-store"])
        let missing = try await client.get("/nowhere")
        #expect(missing.status == .notFound)
        #expect(missing.headers["Cache-Control"] == [Self.privateDefault])
        let malformed = try await TestClient(app).get("/?x=%zz")
        #expect(malformed.status == .badRequest)
        #expect(malformed.headers["Cache-Control"] == [Self.privateDefault])
        let tooLarge = try await TestClient(app).request(.POST, "/", headers: ["Content-Length": String((1 << 20) + 1)])
        #expect(tooLarge.status == .payloadTooLarge)
        #expect(tooLarge.headers["Cache-Control"] == ["no-store"])
        // Signed in, a missing page is not stored either.
        _ = try await client.post("/signin", form: ["username": "user", "password": "secret123"])
        #expect(try await client.get("/nowhere").headers["Cache-Control"] == ["no-store"])
    }

    @Test func staticFilesKeepTheirValidatorsAndCacheControl() async throws {
        let (views, users, site) = (try templates(), try TemporaryFolder(), try TemporaryFolder(["css/app.css": "body {}\n"]))
        defer { views.remove(); users.remove(); site.remove() }
        let app = try makeApp(views: views, users: users, publicFolder: site.path)
        let client = TestClient(app)
        let anonymous = try await client.get("/css/app.css")
        #expect(anonymous.headers["Cache-Control"] == ["no-cache"])
        #expect(anonymous.headers.first(name: "ETag") != nil)
        #expect(anonymous.headers.first(name: "Last-Modified") != nil)
        #expect(anonymous.headers["Vary"] == [])
        // Signed in, the same file is answered the same.
        _ = try await client.post("/signin", form: ["username": "user", "password": "secret123"])
        let signedIn = try await client.get("/css/app.css")
        #expect(signedIn.headers["Cache-Control"] == ["no-cache"])
        #expect(signedIn.headers.first(name: "ETag") == anonymous.headers.first(name: "ETag"))
        #expect(signedIn.setCookieHeader() == nil)
        let revalidated = try await client.get("/css/app.css", headers: ["If-None-Match": try #require(anonymous.headers.first(name: "ETag"))])
        #expect(revalidated.status == .notModified)
        #expect(revalidated.headers["Cache-Control"] == ["no-cache"])
        // The setting changes it.
        app.settings.staticCacheControl = "public, max-age=31536000, immutable"
        #expect(try await client.get("/css/app.css").headers["Cache-Control"] == ["public, max-age=31536000, immutable"])
    }

    @Test func theDefaultCanBeChanged() async throws {
        let app = isolatedApp { $0.securityHeaders.defaultCacheControl = "no-store" }
        app.get("/page") { _ in "page" }
        #expect(try await TestClient(app).get("/page").headers["Cache-Control"] == ["no-store"])
    }
}
