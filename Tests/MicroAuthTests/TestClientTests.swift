import MicroAuth
import MicroCore
import MicroTestSupport
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

@Suite struct CookieValueTests {
    @Test func aValueFromInputCannotAddAttributesAndReadsBackIntact() async throws {
        let app = testApp()
        app.get("/remember") { request in
            request.response.setCookie(Cookie(name: "last", value: request.params["q"] ?? ""))
            return "ok"
        }
        app.get("/recall") { request in request.cookie("last") ?? "-" }
        let client = TestClient(app)
        let hostile = "x; Domain=evil.example; SameSite=None 100% é"
        let set = try await client.get("/remember?q=" + PercentEncoding.encode(hostile))
        let header = try #require(set.headers["Set-Cookie"].first)
        // The value's `;` and spaces are escaped: the browser sees no Domain attribute.
        let attributes = header.components(separatedBy: "; ").dropFirst()
        #expect(!attributes.contains { $0.hasPrefix("Domain") })
        #expect(header.hasPrefix("last=x%3B%20Domain=evil.example%3B%20SameSite=None%20100%25%20%C3%A9; Path=/;"))
        #expect(try await client.get("/recall").text == hostile)
    }

    // Found by fuzz/FuzzCookies: a `=` in the name ended it, so the cookie was read back
    // under another name; an escaped name was never found.
    @Test func aNameWithCharactersACookieCannotHoldReadsBack() async throws {
        let app = testApp()
        let name = "a=b; c d%"
        app.get("/remember") { request in
            request.response.setCookie(Cookie(name: name, value: "1=2"))
            return "ok"
        }
        app.get("/recall") { request in "\(request.cookie(name) ?? "-") \(request.cookie("a") ?? "-")" }
        let client = TestClient(app)
        let set = try await client.get("/remember")
        #expect(set.headers["Set-Cookie"].first?.hasPrefix("a%3Db%3B%20c%20d%25=1=2; ") == true)
        #expect(try await client.get("/recall").text == "1=2 -")
    }
}

@Suite struct TestClientSignInTests {
    @Test func signInKeepsTheSessionAndAWrongPasswordThrows() async throws {
        let folder = try TemporaryFolder()
        defer { folder.remove() }
        let app = isolatedApp()
        app.use(try UserStoreKind.yaml.authentication(in: folder))
        app.get("/me") { request in try request.authenticate().username }
        let client = TestClient(app)
        await #expect(throws: TestClientError.self) { try await client.signIn("ann", "wrong") }
        #expect(try await client.get("/me").location == "/signin")
        try await client.signIn("ann", "ann-password")
        #expect(try await client.get("/me").text == "ann")
        try await client.signOut()
        #expect(try await client.get("/me").location == "/signin")
    }
}
