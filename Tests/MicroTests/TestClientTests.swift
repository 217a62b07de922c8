import Micro
import MicroTesting
import Testing

@Suite struct TestClientTests {
    @Test func keepsCookiesBetweenRequestsLikeABrowser() async throws {
        let app = testApp()
        app.get("/set") { request in
            request.response.setCookie(Cookie(name: "theme", value: "dark"))
            request.response.setCookie(Cookie(name: "scoped", value: "1", path: "/admin"))
            return "set"
        }
        app.get("/read") { request in "theme=\(request.cookie("theme") ?? "-") scoped=\(request.cookie("scoped") ?? "-")" }
        app.get("/admin/read") { request in "scoped=\(request.cookie("scoped") ?? "-")" }
        app.get("/forget") { request in
            request.response.setCookie(Cookie(name: "theme", value: "", maxAge: 0))
            return "forgot"
        }
        let client = TestClient(app)
        #expect(try await client.get("/read").text == "theme=- scoped=-")
        _ = try await client.get("/set")
        #expect(client.cookies["theme"]?.attributes.contains("HttpOnly") == true)
        #expect(client.cookies["theme"]?.attributes.contains("SameSite=Lax") == true)
        #expect(try await client.get("/read").text == "theme=dark scoped=-")
        #expect(try await client.get("/admin/read").text == "scoped=1")
        _ = try await client.get("/forget")
        #expect(try await client.get("/read").text == "theme=- scoped=-")
    }

    @Test func followsRedirectsWhenAsked() async throws {
        let app = testApp()
        app.post("/form") { request in try request.redirect(to: "/thanks?from=form") }
        app.get("/thanks") { request in "thanks \(request.params["from"] ?? "")" }
        let client = TestClient(app)
        let stopped = try await client.post("/form", form: ["a": "1"])
        #expect(stopped.status == .seeOther)
        client.followRedirects = true
        let followed = try await client.post("/form", form: ["a": "1"])
        #expect(followed.status == .ok)
        #expect(followed.text == "thanks form")
    }

    @Test func aRedirectLoopIsReportedNotHung() async throws {
        let app = testApp()
        app.get("/loop") { request in try request.redirect(to: "/loop") }
        let client = TestClient(app, followRedirects: true)
        await #expect(throws: TestClientError.self) { try await client.get("/loop") }
    }
}
