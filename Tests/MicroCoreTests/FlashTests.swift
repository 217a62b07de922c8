import Foundation
import MicroCore
import MicroTestSupport
import MicroTesting
import Testing

/// An app that sets flash messages and shows them.
private func flashApp(_ kind: SessionStoreKind, views: String? = nil) -> App {
    let app = isolatedApp { settings in
        settings.sessions.store = kind.makeStore()
        if let views { settings.views = views }
    }
    app.post("/save") { request in
        for (name, value) in request.params.form { request.flash[name] = value }
        try request.redirect(to: "/")
    }
    app.get("/") { request in
        ["notice", "error", "custom-kind"].map { "\($0)=\(request.flash[$0] ?? "-")" }.joined(separator: " ")
    }
    app.get("/now") { request in
        request.flash.now["alert"] = "Only now."
        return request.flash["alert"] ?? "-"
    }
    app.get("/alert") { request in request.flash["alert"] ?? "-" }
    app.get("/page") { request in try request.render("page") }
    return app
}

@Suite struct FlashTests {
    @Test(arguments: SessionStoreKind.allCases)
    func messageIsShownInTheNextRequestThenGone(kind: SessionStoreKind) async throws {
        let client = TestClient(flashApp(kind))
        let saved = try await client.post("/save", form: ["notice": "Saved."])
        #expect(saved.status == .seeOther)
        #expect(saved.location == "/")
        #expect(try await client.get("/").text == "notice=Saved. error=- custom-kind=-")
        #expect(try await client.get("/").text == "notice=- error=- custom-kind=-")
    }

    @Test(arguments: SessionStoreKind.allCases)
    func messageSurvivesARedirectFollowedByTheClient(kind: SessionStoreKind) async throws {
        let client = TestClient(flashApp(kind), followRedirects: true)
        let page = try await client.post("/save", form: ["error": "Could not save."])
        #expect(page.status == .ok)
        #expect(page.text == "notice=- error=Could not save. custom-kind=-")
        #expect(try await client.get("/").text == "notice=- error=- custom-kind=-")
    }

    @Test(arguments: SessionStoreKind.allCases)
    func aRequestThatDoesNotLookAtTheFlashLeavesItForTheNext(kind: SessionStoreKind) async throws {
        let app = flashApp(kind)
        // Requests that read the session (as a sign-in check does) but not the flash.
        app.get("/bounce") { request in
            _ = request.session["_user"]
            try request.redirect(to: "/")
        }
        app.post("/api/ping") { request in request.session["_user"] ?? "pong" }
        let client = TestClient(app)
        _ = try await client.post("/save", form: ["notice": "Saved."])
        #expect(try await client.get("/bounce").status == .found)
        #expect(try await client.post("/api/ping", json: ["a": 1]).text == "pong")
        #expect(try await client.get("/").text == "notice=Saved. error=- custom-kind=-")
        #expect(try await client.get("/").text == "notice=- error=- custom-kind=-")
    }

    @Test func anyKeysAndSeveralAtOnce() async throws {
        let client = TestClient(flashApp(.cookie))
        _ = try await client.post("/save", form: ["notice": "One", "error": "Two", "custom-kind": "Three"])
        #expect(try await client.get("/").text == "notice=One error=Two custom-kind=Three")
        #expect(try await client.get("/").text == "notice=- error=- custom-kind=-")
    }

    @Test func eachClientSeesItsOwnMessages() async throws {
        let app = flashApp(.cookie)
        let ann = TestClient(app)
        let bob = TestClient(app)
        _ = try await ann.post("/save", form: ["notice": "For Ann"])
        #expect(try await bob.get("/").text == "notice=- error=- custom-kind=-")
        #expect(try await ann.get("/").text == "notice=For Ann error=- custom-kind=-")
    }

    @Test(arguments: SessionStoreKind.allCases)
    func nowIsReadableInTheSameRequestOnly(kind: SessionStoreKind) async throws {
        let client = TestClient(flashApp(kind))
        let now = try await client.get("/now")
        #expect(now.text == "Only now.")
        // Nothing was kept for later: no cookie, nothing in the next request.
        #expect(now.setCookieHeader() == nil)
        #expect(try await client.get("/alert").text == "-")
    }

    @Test func templatesShowTheFlashAutomatically() async throws {
        let views = try TemporaryFolder([
            "page.mustache": "[{{flash.notice}}][{{flash.alert}}]{{#flashMessages}}<p class=\"{{kind}}\">{{message}}</p>{{/flashMessages}}"
        ])
        defer { views.remove() }
        let app = flashApp(.cookie, views: views.path)
        app.get("/page-now") { request in
            request.flash.now["alert"] = "Right now <b>"
            return try request.render("page")
        }
        let client = TestClient(app)
        #expect(try await client.get("/page").text == "[][]")
        _ = try await client.post("/save", form: ["notice": "Saved & done"])
        #expect(try await client.get("/page").text == #"[Saved &amp; done][]<p class="notice">Saved &amp; done</p>"#)
        #expect(try await client.get("/page").text == "[][]")
        #expect(try await client.get("/page-now").text == #"[][Right now &lt;b&gt;]<p class="alert">Right now &lt;b&gt;</p>"#)
    }

    @Test func aPageThatDoesNotShowTheFlashStillTakesItOut() async throws {
        // Shown once, on the page after the redirect, whether that page's templates show it or not.
        let views = try TemporaryFolder(["page.mustache": "[{{flash.notice}}]", "plain.mustache": "plain"])
        defer { views.remove() }
        let app = flashApp(.cookie, views: views.path)
        app.get("/plain") { request in try request.render("plain") }
        let client = TestClient(app)
        _ = try await client.post("/save", form: ["notice": "Saved."])
        #expect(try await client.get("/plain").text == "plain")
        #expect(try await client.get("/page").text == "[]")
    }
}
