import Foundation
import MicroAuth
import MicroCore
import MicroTestSupport
import MicroTesting
import Testing

@Suite struct RoutingTests {
    @Test func everyMethodHasItsRoute() async throws {
        let app = testApp()
        app.get("/thing") { _ in "get" }
        app.post("/thing") { _ in "post" }
        app.put("/thing") { _ in "put" }
        app.patch("/thing") { _ in "patch" }
        app.delete("/thing") { _ in "delete" }
        app.options("/thing") { _ in "options" }
        let client = TestClient(app)
        for method: HttpMethod in [.GET, .POST, .PUT, .PATCH, .DELETE, .OPTIONS] {
            let response = try await client.request(method, "/thing")
            #expect(response.status == .ok)
            #expect(response.text == method.rawValue.lowercased())
        }
    }

    @Test func headIsAnsweredByTheGetRouteWithoutABody() async throws {
        let app = testApp()
        app.get("/page") { _ in "twelve bytes" }
        let response = try await TestClient(app).head("/page")
        #expect(response.status == .ok)
        #expect(response.body.isEmpty)
        #expect(response.headers.first(name: "Content-Length") == "12")
    }

    @Test func firstMatchingRouteWinsInDefinitionOrder() async throws {
        let app = testApp()
        app.get("/users/new") { _ in "form" }
        app.get("/users/:name") { request in "user \(request.params["name"]!)" }
        let client = TestClient(app)
        #expect(try await client.get("/users/new").text == "form")
        #expect(try await client.get("/users/ann").text == "user ann")
    }

    @Test func passHandsOverToTheNextMatch() async throws {
        let app = testApp()
        app.get("/guess/:who") { request in
            guard request.params["who"] == "frank" else { try request.pass() }
            return "You got me!"
        }
        app.get("/guess/*") { request in "You missed! (\(request.params.splat.first ?? ""))" }
        let client = TestClient(app)
        #expect(try await client.get("/guess/frank").text == "You got me!")
        #expect(try await client.get("/guess/bob").text == "You missed! (bob)")
    }

    @Test func passWithNoFurtherMatchIsNotFound() async throws {
        let app = testApp()
        app.get("/only") { request in try request.pass() }
        #expect(try await TestClient(app).get("/only").status == .notFound)
    }

    @Test func wrongMethodIsNotFound() async throws {
        let app = testApp()
        app.post("/form") { _ in "posted" }
        #expect(try await TestClient(app).get("/form").status == .notFound)
    }

    @Test func haltStopsWithStatusAndBodyKeepingHeaders() async throws {
        let app = testApp()
        app.get("/secret") { request in
            request.response.headers.add(name: "X-Why", value: "because")
            try request.halt(.forbidden, "Go away")
        }
        let response = try await TestClient(app).get("/secret")
        #expect(response.status == .forbidden)
        #expect(response.text == "Go away")
        #expect(response.headers.first(name: "X-Why") == "because")
    }

    @Test func haltSendsPlainTextSoWhatItQuotesIsNotMarkup() async throws {
        let app = testApp()
        app.get("/items/:id") { request in
            try request.halt(.notFound, "No item \(request.params["id"] ?? "")")
        }
        app.get("/page") { request in try request.halt(.notFound, html: "<p>No <b>page</b></p>") }
        app.get("/typed") { request in
            request.response.contentType = "text/html; charset=utf-8"
            try request.halt(.ok, "<p>the route says HTML</p>")
        }
        let client = TestClient(app)
        let reflected = try await client.get("/items/%3Cscript%3Ealert(1)%3C%2Fscript%3E")
        #expect(reflected.status == .notFound)
        #expect(reflected.headers.first(name: "Content-Type") == "text/plain; charset=utf-8")
        #expect(reflected.headers.first(name: "X-Content-Type-Options") == "nosniff")
        let page = try await client.get("/page")
        #expect(page.headers.first(name: "Content-Type") == "text/html; charset=utf-8")
        #expect(page.text == "<p>No <b>page</b></p>")
        #expect(try await client.get("/typed").headers.first(name: "Content-Type") == "text/html; charset=utf-8")
    }

    @Test func aMissingViewsFolderStopsStartUpNamingIt() async throws {
        let app = testApp { $0.views = "/nonexistent/micro-views" }
        app.get("/") { _ in "home" }
        await #expect(throws: ConfigurationError.self) { try await TestClient(app).get("/") }
        do {
            _ = try await app.start()
            Issue.record("started without its views folder")
        } catch let error as ConfigurationError {
            #expect(error.message.contains("settings.views: the views folder '/nonexistent/micro-views' does not exist"))
        }
    }

    @Test func haltFromAHelperDeepInsideTheBlock() async throws {
        let app = testApp()
        @Sendable func requireNumber(_ request: Request) throws -> Int {
            guard let value = Int(request.params["n"] ?? "") else { try request.halt(.unprocessableEntity, "n must be a number") }
            return value
        }
        app.get("/double") { request in String(try requireNumber(request) * 2) }
        let client = TestClient(app)
        #expect(try await client.get("/double?n=21").text == "42")
        let bad = try await client.get("/double?n=x")
        #expect(bad.status == .unprocessableEntity)
        #expect(bad.text == "n must be a number")
    }

    @Test func redirectIs302AfterGetAnd303AfterPost() async throws {
        let app = testApp()
        app.get("/old") { request in try request.redirect(to: "/new") }
        app.post("/submit") { request in try request.redirect(to: "/done") }
        app.get("/moved") { request in try request.redirect(to: "/new", status: .movedPermanently) }
        let client = TestClient(app)
        let get = try await client.get("/old")
        #expect(get.status == .found)
        #expect(get.location == "/new")
        let post = try await client.post("/submit", form: [:])
        #expect(post.status == .seeOther)
        #expect(post.location == "/done")
        #expect(try await client.get("/moved").status == .movedPermanently)
    }

    @Test func statusHeadersAndContentTypeCanBeSet() async throws {
        let app = testApp()
        app.post("/items") { request in
            request.response.status = .created
            request.response.contentType = "text/plain; charset=utf-8"
            request.response.headers.add(name: "Location", value: "/items/1")
            return "created"
        }
        let response = try await TestClient(app).post("/items", form: [:])
        #expect(response.status == .created)
        #expect(response.contentType == "text/plain; charset=utf-8")
        #expect(response.location == "/items/1")
        #expect(response.text == "created")
    }

    @Test func blocksReturnStringsResponsesStatusesOrEncodableValues() async throws {
        struct User: Codable, Equatable { var name: String; var admin: Bool }
        let app = testApp()
        app.get("/text") { _ in "hi" }
        app.get("/response") { _ in Response(status: .accepted, contentType: "text/plain", body: "later") }
        app.get("/status") { _ in HttpStatus.noContent }
        app.get("/json") { _ in User(name: "Ann", admin: true) }
        app.get("/list") { _ in [1, 2, 3] }
        let client = TestClient(app)
        let text = try await client.get("/text")
        #expect(text.contentType == "text/html; charset=utf-8")
        let response = try await client.get("/response")
        #expect(response.status == .accepted)
        #expect(response.text == "later")
        #expect(try await client.get("/status").status == .noContent)
        let json = try await client.get("/json")
        #expect(json.contentType == "application/json")
        #expect(try json.decode(User.self) == User(name: "Ann", admin: true))
        #expect(try await client.get("/list").text == "[1,2,3]")
    }

    @Test func beforeAndAfterFiltersRunAroundTheRoute() async throws {
        let app = testApp()
        app.before { request in request.response.headers.add(name: "X-Before", value: "all") }
        app.before("/admin/*") { request in
            if request.params["token"] != "ok" { try request.halt(.unauthorized, "token please") }
        }
        app.after { request in request.response.headers.add(name: "X-After", value: String(request.response.status.code)) }
        app.after("/admin/*") { request in request.response.headers.add(name: "X-Admin", value: "yes") }
        app.get("/") { _ in "home" }
        app.get("/admin/panel") { request in "panel" }
        let client = TestClient(app)

        let home = try await client.get("/")
        #expect(home.headers.first(name: "X-Before") == "all")
        #expect(home.headers.first(name: "X-After") == "200")
        #expect(home.headers.first(name: "X-Admin") == nil)

        let refused = try await client.get("/admin/panel")
        #expect(refused.status == .unauthorized)
        #expect(refused.headers.first(name: "X-After") == "401")
        #expect(refused.headers.first(name: "X-Admin") == "yes")

        let allowed = try await client.get("/admin/panel?token=ok")
        #expect(allowed.text == "panel")
    }

    @Test func afterFiltersSeeNotFoundResponses() async throws {
        let app = testApp()
        app.after { request in request.response.headers.add(name: "X-Seen", value: "1") }
        let response = try await TestClient(app).get("/missing")
        #expect(response.status == .notFound)
        #expect(response.headers.first(name: "X-Seen") == "1")
    }

    @Test func invalidPatternStopsStartUpNamingFileAndLine() async throws {
        let app = testApp()
        app.get("no-slash") { _ in "x" }
        await #expect(throws: ConfigurationError.self) { try await app.start() }
        do {
            _ = try await TestClient(app).get("/")
            Issue.record("expected a configuration error")
        } catch let error as ConfigurationError {
            #expect(error.message.contains("RoutingTests.swift:"))
            #expect(error.message.contains("no-slash"))
        }
    }
}

@Suite struct RoutingHardeningTests {
    @Test func aRedirectWithALineBreakIsRefusedNotACrash() async throws {
        let app = testApp()
        app.get("/go") { request in try request.redirect(to: request.params["next"] ?? "/") }
        let response = try await TestClient(app).get("/go?next=/x%0d%0aSet-Cookie:%20a=b")
        #expect(response.status == .badRequest)
        #expect(response.headers["Set-Cookie"].isEmpty)
    }

    @Test func badSettingsStopStartUpWithTheSettingsName() async throws {
        let app = testApp { $0.connectionIdleTimeout = .seconds(100_000); $0.sendTimeout = .zero; $0.bodyLimit = 0 }
        do {
            _ = try await app.start()
            Issue.record("expected a configuration error")
        } catch let error as ConfigurationError {
            #expect(error.message.contains("settings.connectionIdleTimeout"))
            #expect(error.message.contains("settings.sendTimeout"))
            #expect(error.message.contains("settings.bodyLimit"))
        }
    }

    @Test func theFirstOfTwoCookiesWithOneNameWins() async throws {
        let app = testApp()
        app.get("/c") { request in request.cookie("a") ?? "-" }
        #expect(try await TestClient(app).get("/c", headers: ["Cookie": "a=first; a=second"]).text == "first")
    }
}
