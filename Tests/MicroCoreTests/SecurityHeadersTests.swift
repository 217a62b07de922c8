import Foundation
import MicroCore
import MicroTestSupport
import MicroTesting
import Testing

/// An app with a page, a JSON answer, and sign-in / sign-out routes of its own, which keep
/// who signed in under a session key the app names as that (as Authentication does).
private func headersApp(configure: (inout Settings) -> Void = { _ in }) -> App {
    let app = isolatedApp(configure: configure)
    app.addSignedInSessionKey("_user")
    app.get("/page") { _ in "<p>page</p>" }
    app.get("/data") { _ in ["a": 1] }
    app.post("/signin") { request in
        try request.session.set("_user", "ann")
        return "<p>welcome</p>"
    }
    app.post("/signout") { request in
        request.session.remove("_user")
        return "<p>bye</p>"
    }
    app.post("/note") { request in
        request.session["note"] = "anonymous"
        return "<p>noted</p>"
    }
    return app
}

private let defaultPolicy =
    "default-src 'self'; script-src 'self'; style-src 'self'; img-src 'self' data:; font-src 'self'; "
    + "connect-src 'self'; form-action 'self'; frame-ancestors 'none'; base-uri 'self'; object-src 'none'"

@Suite struct SecurityHeadersTests {
    @Test func htmlPagesCarryTheProtectiveHeaders() async throws {
        let response = try await TestClient(headersApp()).get("/page")
        #expect(response.contentType == "text/html; charset=utf-8")
        #expect(response.headers.first(name: "X-Content-Type-Options") == "nosniff")
        #expect(response.headers.first(name: "X-Frame-Options") == "DENY")
        #expect(response.headers.first(name: "Referrer-Policy") == "same-origin")
        #expect(response.headers.first(name: "Content-Security-Policy") == defaultPolicy)
        // An anonymous page that read no session: private to the browser, asked for again.
        #expect(response.headers.first(name: "Cache-Control") == "private, max-age=0, must-revalidate")
        #expect(response.headers.first(name: "Vary") == nil)
    }

    @Test func errorPagesCarryThemToo() async throws {
        let client = TestClient(headersApp())
        let missing = try await client.get("/nowhere")
        #expect(missing.status == .notFound)
        #expect(missing.headers.first(name: "X-Frame-Options") == "DENY")
        #expect(missing.headers.first(name: "Content-Security-Policy") == defaultPolicy)
        client.sendsCsrfToken = false
        let refused = try await client.post("/note", form: [:])
        #expect(refused.status == .forbidden)
        #expect(refused.headers.first(name: "X-Frame-Options") == "DENY")
        let badRequest = try await client.get("/page?x=%zz")
        #expect(badRequest.status == .badRequest)
        #expect(badRequest.headers.first(name: "X-Content-Type-Options") == "nosniff")
    }

    @Test func otherResponsesGetOnlyNosniff() async throws {
        let response = try await TestClient(headersApp()).get("/data")
        #expect(response.contentType == "application/json")
        #expect(response.headers.first(name: "X-Content-Type-Options") == "nosniff")
        #expect(response.headers.first(name: "X-Frame-Options") == nil)
        #expect(response.headers.first(name: "Content-Security-Policy") == nil)
    }

    @Test func pagesForASignedInSessionAreNotStored() async throws {
        let client = TestClient(headersApp())
        let signin = try await client.post("/signin", form: [:])
        #expect(signin.headers.first(name: "Cache-Control") == "no-store")
        let page = try await client.get("/page")
        #expect(page.text == "<p>page</p>")
        #expect(page.headers.first(name: "Cache-Control") == "no-store")
        // JSON too: whatever a signed-in session is answered is its own.
        #expect(try await client.get("/data").headers.first(name: "Cache-Control") == "no-store")

        // Sign-out deletes the cookie: a response setting a cookie is never stored.
        let signout = try await client.post("/signout", form: [:])
        #expect(signout.headers.first(name: "Cache-Control") == "no-store")
        #expect(try await client.get("/page").headers.first(name: "Cache-Control") == "private, max-age=0, must-revalidate")
    }

    @Test func anAnonymousSessionIsNotSignedIn() async throws {
        let client = TestClient(headersApp())
        _ = try await client.post("/note", form: [:])
        #expect(client.cookies[sessionCookie] != nil)
        let page = try await client.get("/page")
        #expect(page.headers.first(name: "Cache-Control") == "private, max-age=0, must-revalidate")
        #expect(page.headers["Vary"] == ["Cookie"])
    }

    @Test func signedInPageOverridesTheRoutesCacheControl() async throws {
        let app = headersApp()
        app.get("/cached") { request in
            request.response.headers.add(name: "Cache-Control", value: "public, max-age=3600")
            return "<p>cached</p>"
        }
        let client = TestClient(app)
        #expect(try await client.get("/cached").headers["Cache-Control"] == ["public, max-age=3600"])
        _ = try await client.post("/signin", form: [:])
        #expect(try await client.get("/cached").headers["Cache-Control"] == ["no-store"])
    }

    @Test func eachHeaderCanBeChanged() async throws {
        let app = headersApp { settings in
            settings.securityHeaders.contentTypeOptions = "nosniff; custom"
            settings.securityHeaders.frameOptions = "SAMEORIGIN"
            settings.securityHeaders.referrerPolicy = "no-referrer"
            settings.securityHeaders.contentSecurityPolicy = "default-src 'self'; img-src *"
            settings.securityHeaders.signedInCacheControl = "private, no-cache"
        }
        let client = TestClient(app)
        let page = try await client.get("/page")
        #expect(page.headers.first(name: "X-Content-Type-Options") == "nosniff; custom")
        #expect(page.headers.first(name: "X-Frame-Options") == "SAMEORIGIN")
        #expect(page.headers.first(name: "Referrer-Policy") == "no-referrer")
        #expect(page.headers.first(name: "Content-Security-Policy") == "default-src 'self'; img-src *")
        _ = try await client.post("/signin", form: [:])
        #expect(try await client.get("/page").headers.first(name: "Cache-Control") == "private, no-cache")
    }

    @Test func eachHeaderCanBeTurnedOff() async throws {
        let app = headersApp { settings in
            settings.securityHeaders.contentTypeOptions = nil
            settings.securityHeaders.frameOptions = nil
            settings.securityHeaders.referrerPolicy = nil
            settings.securityHeaders.contentSecurityPolicy = nil
            settings.securityHeaders.signedInCacheControl = nil
            settings.securityHeaders.defaultCacheControl = nil
        }
        let client = TestClient(app)
        _ = try await client.post("/signin", form: [:])
        let page = try await client.get("/page")
        #expect(page.status == .ok)
        for name in ["X-Content-Type-Options", "X-Frame-Options", "Referrer-Policy", "Content-Security-Policy", "Cache-Control"] {
            #expect(page.headers.first(name: name) == nil, "\(name)")
        }
    }

    @Test func oneHeaderOffLeavesTheOthers() async throws {
        let app = headersApp { $0.securityHeaders.frameOptions = nil }
        let page = try await TestClient(app).get("/page")
        #expect(page.headers.first(name: "X-Frame-Options") == nil)
        #expect(page.headers.first(name: "Content-Security-Policy") == defaultPolicy)
        #expect(page.headers.first(name: "X-Content-Type-Options") == "nosniff")
    }

    @Test func aRouteSettingAHeaderItselfKeepsIt() async throws {
        let app = headersApp()
        app.get("/embeddable") { request in
            request.response.headers.add(name: "X-Frame-Options", value: "SAMEORIGIN")
            request.response.headers.add(name: "Content-Security-Policy", value: "frame-ancestors 'self'")
            return "<p>widget</p>"
        }
        let page = try await TestClient(app).get("/embeddable")
        #expect(page.headers["X-Frame-Options"] == ["SAMEORIGIN"])
        #expect(page.headers["Content-Security-Policy"] == ["frame-ancestors 'self'"])
        #expect(page.headers.first(name: "Referrer-Policy") == "same-origin")
    }
}
