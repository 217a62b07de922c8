import MicroCore
import MicroTestSupport
import MicroTesting
import Testing

private struct Boom: Error, CustomStringConvertible {
    var description: String { "boom <b>" }
}

private struct OutOfStock: Error {
    var item: String
}

@Suite struct ErrorTests {
    @Test func unmatchedRouteGetsA404Page() async throws {
        let response = try await TestClient(testApp()).get("/nowhere")
        #expect(response.status == .notFound)
        #expect(response.contentType == "text/html; charset=utf-8")
        #expect(response.text.contains("404 Not Found"))
    }

    @Test func thrownErrorShowsDetailInDevelopment() async throws {
        let app = testApp(environment: .development)
        app.get("/explode") { _ -> String in throw Boom() }
        let response = try await TestClient(app).get("/explode")
        #expect(response.status == .internalServerError)
        #expect(response.text.contains("Boom"))
        #expect(response.text.contains("boom &lt;b&gt;"))  // escaped
        #expect(response.text.contains("ErrorTests.swift:"))  // where the block was defined
        #expect(response.text.contains("GET /explode"))
    }

    @Test func thrownErrorIsPlainInProduction() async throws {
        let app = testApp(environment: .production)
        app.get("/explode") { _ -> String in throw Boom() }
        let response = try await TestClient(app).get("/explode")
        #expect(response.status == .internalServerError)
        #expect(!response.text.contains("Boom"))
        #expect(!response.text.contains("ErrorTests.swift"))
        #expect(response.text.contains("Something went wrong"))
    }

    @Test func httpErrorsAnswerTheirStatusAndMessage() async throws {
        let app = testApp(environment: .production)
        app.get("/items/:id") { request -> String in
            throw HttpError(.unprocessableEntity, "id must be a number", headers: ["X-Hint": "digits"])
        }
        let response = try await TestClient(app).get("/items/abc")
        #expect(response.status == .unprocessableEntity)
        #expect(response.text.contains("id must be a number"))
        #expect(response.headers.first(name: "X-Hint") == "digits")
    }

    @Test func clientErrorsAreShownInTheAppsLayout() async throws {
        let folder = try TemporaryFolder(["views/layout.mustache": "<main data-layout>{{{yield}}}</main>"])
        let app = testApp { $0.views = folder.file("views") }
        app.get("/secret") { _ -> String in throw HttpError(.forbidden, "Only <admins> may see this.") }
        app.get("/broken") { _ -> String in throw HttpError(.internalServerError, "the layout may be what is broken") }
        let client = TestClient(app)

        let forbidden = try await client.get("/secret")
        #expect(forbidden.status == .forbidden)
        #expect(forbidden.contentType == "text/html; charset=utf-8")
        #expect(forbidden.text.hasPrefix("<main data-layout>"))
        #expect(forbidden.text.contains("<h1>403 Forbidden</h1>"))
        #expect(forbidden.text.contains("Only &lt;admins&gt; may see this."))
        let missing = try await client.get("/nowhere")
        #expect(missing.status == .notFound)
        #expect(missing.text.hasPrefix("<main data-layout>") && missing.text.contains("404 Not Found"))

        // A server's error keeps the plain page; JSON clients get JSON.
        let broken = try await client.get("/broken")
        #expect(!broken.text.contains("data-layout") && broken.text.contains("500 Internal Server Error"))
        let json = try await client.get("/secret", headers: ["Accept": "application/json"])
        #expect(json.contentType == "application/json" && json.text.contains(#""error":"Only <admins> may see this.""#))

        // The app's own views/error.mustache restyles it.
        try folder.write("views/error.mustache", "<p class=\"oops\">{{status}}: {{message}}</p>")
        let styled = TestClient(testApp { $0.views = folder.file("views") })
        let restyled = try await styled.get("/nowhere")
        #expect(restyled.text == "<main data-layout><p class=\"oops\">404: No route matches GET /nowhere.</p></main>")
    }

    @Test func withoutALayoutErrorsArePlainPages() async throws {
        let folder = try TemporaryFolder(["views/index.mustache": "home"])
        let response = try await TestClient(testApp { $0.views = folder.file("views") }).get("/nowhere")
        #expect(response.status == .notFound)
        #expect(response.text.hasPrefix("<!DOCTYPE html>"))
    }

    @Test func jsonClientsGetJsonErrors() async throws {
        let response = try await TestClient(testApp()).get("/nowhere", headers: ["Accept": "application/json"])
        #expect(response.status == .notFound)
        #expect(response.contentType == "application/json")
        #expect(response.text.hasPrefix(#"{"error":"No route matches GET /nowhere."#))
    }

    @Test func notFoundHandlerReplacesThe404Page() async throws {
        let app = testApp()
        app.notFound { request in "Nothing at \(request.path)" }
        let response = try await TestClient(app).get("/lost")
        #expect(response.status == .notFound)
        #expect(response.text == "Nothing at /lost")
    }

    @Test func errorHandlersByTypeAndByStatus() async throws {
        let app = testApp()
        app.error(OutOfStock.self) { request, error in
            request.response.status = .conflict
            return "Sorry, \(error.item) is sold out."
        }
        app.error(.internalServerError) { _, error in "Custom 500: \(type(of: error))" }
        app.error(.forbidden) { _, _ in "Custom 403" }
        app.get("/buy") { _ -> String in throw OutOfStock(item: "tea") }
        app.get("/crash") { _ -> String in throw Boom() }
        app.get("/deny") { _ -> String in throw HttpError(.forbidden) }
        let client = TestClient(app)

        let stock = try await client.get("/buy")
        #expect(stock.status == .conflict)
        #expect(stock.text == "Sorry, tea is sold out.")
        let crash = try await client.get("/crash")
        #expect(crash.status == .internalServerError)
        #expect(crash.text == "Custom 500: Boom")
        let deny = try await client.get("/deny")
        #expect(deny.status == .forbidden)
        #expect(deny.text == "Custom 403")
    }

    @Test func aFailingErrorHandlerFallsBackToTheDefaultPage() async throws {
        let app = testApp()
        app.error(.internalServerError) { _, _ -> String in throw Boom() }
        app.get("/crash") { _ -> String in throw Boom() }
        let response = try await TestClient(app).get("/crash")
        #expect(response.status == .internalServerError)
        #expect(response.text.contains("500 Internal Server Error"))
    }

    @Test func environmentAndPortComeFromTheProcessWithClearErrors() throws {
        #expect(try Settings.fromProcess([:]).environment == .development)
        #expect(try Settings.fromProcess(["MICRO_ENV": "production"]).environment == .production)
        let custom = try Settings.fromProcess(["HOST": "0.0.0.0", "PORT": "8080"])
        #expect(custom.host == "0.0.0.0")
        #expect(custom.port == 8080)
        #expect(Settings().port == 4567)
        #expect(Settings().host == "127.0.0.1")
        #expect(Settings().bodyLimit == 1 << 20)
        #expect(Settings().headerLimit == 16 << 10)
        do {
            _ = try Settings.fromProcess(["MICRO_ENV": "prod"])
            Issue.record("expected an error")
        } catch {
            #expect(error.message.contains("MICRO_ENV is 'prod'"))
        }
        #expect(throws: ConfigurationError.self) { try Settings.fromProcess(["PORT": "http"]) }
        #expect(throws: ConfigurationError.self) { try Settings.fromProcess(["PORT": "70000"]) }
    }
}
