import Foundation
import MicroCore
import MicroTestSupport
import MicroTesting
import Testing

/// An app with a form page, state-changing routes, and a session value to watch.
private func csrfApp(views: TemporaryFolder, configure: (inout Settings) -> Void = { _ in }) -> App {
    let app = isolatedApp {
        $0.views = views.path
        // The names these tests send in Host (a real deployment lists its own).
        $0.allowedHosts = ["example.com", "tools.example.com"]
        configure(&$0)
    }
    app.get("/form") { request in try request.render("form") }
    app.get("/remember") { request in
        request.session["note"] = "kept"
        return "remembered"
    }
    app.get("/note") { request in request.session["note"] ?? "none" }
    app.post("/thing") { _ in "post done" }
    app.put("/thing") { _ in "put done" }
    app.patch("/thing") { _ in "patch done" }
    app.delete("/thing") { _ in "delete done" }
    app.post("/hooks/github") { _ in "hook done" }
    app.post("/api/items") { _ in "json done" }
    return app
}

private let formTemplate = #"<form method="post">{{{csrfField}}}</form>"#

/// A well-formed token that no session issued.
private let forgedToken = Data((0..<64).map { UInt8($0) }).base64EncodedString()
    .replacingOccurrences(of: "+", with: "-").replacingOccurrences(of: "/", with: "_").replacingOccurrences(of: "=", with: "")

@Suite struct CsrfTests {
    @Test(arguments: [HttpMethod.POST, .PUT, .PATCH, .DELETE])
    func formWithoutATokenIsRefusedAndTheSessionKept(method: HttpMethod) async throws {
        let views = try TemporaryFolder(["form.mustache": formTemplate])
        defer { views.remove() }
        let client = TestClient(csrfApp(views: views))
        client.sendsCsrfToken = false
        _ = try await client.get("/remember")
        let cookie = client.cookies[sessionCookie]

        let refused = try await client.request(method, "/thing", form: ["name": "x"])
        #expect(refused.status == .forbidden)
        #expect(refused.contentType == "text/html; charset=utf-8")
        #expect(refused.text.contains("missing CSRF token"))
        #expect(refused.text.contains("reload the page and try again"))
        #expect(!refused.text.contains("done"))
        // The session is not dropped.
        #expect(refused.setCookieHeader() == nil)
        #expect(client.cookies[sessionCookie] == cookie)
        #expect(try await client.get("/note").text == "kept")
    }

    @Test func requestWithoutABodyNeedsATokenToo() async throws {
        let views = try TemporaryFolder(["form.mustache": formTemplate])
        defer { views.remove() }
        let client = TestClient(csrfApp(views: views))
        client.sendsCsrfToken = false
        #expect(try await client.delete("/thing").status == .forbidden)
        #expect(try await client.request(.POST, "/thing").status == .forbidden)
        #expect(try await client.get("/note").status == .ok)
    }

    @Test func wrongTokenIsRefusedAndTheSessionKept() async throws {
        let views = try TemporaryFolder(["form.mustache": formTemplate])
        defer { views.remove() }
        let client = TestClient(csrfApp(views: views))
        client.sendsCsrfToken = false
        _ = try await client.get("/remember")
        _ = try await client.get("/form")  // the session has a CSRF secret
        for token in ["wrong", forgedToken, String(repeating: "A", count: 86)] {
            let inField = try await client.post("/thing", form: ["_csrf": token])
            #expect(inField.status == .forbidden)
            #expect(inField.text.contains("invalid CSRF token"))
            let inHeader = try await client.post("/thing", form: [:], headers: ["X-CSRF-Token": token])
            #expect(inHeader.status == .forbidden)
        }
        #expect(try await client.post("/thing", form: ["_csrf": ""]).status == .forbidden)
        #expect(try await client.get("/note").text == "kept")
    }

    @Test func tokenFromARenderedFormIsAccepted() async throws {
        let views = try TemporaryFolder(["form.mustache": formTemplate])
        defer { views.remove() }
        let client = TestClient(csrfApp(views: views))
        client.sendsCsrfToken = false
        let form = try await client.get("/form")
        let token = try #require(csrfFieldValue(in: form.text))
        for method in [HttpMethod.POST, .PUT, .PATCH, .DELETE] {
            let response = try await client.request(method, "/thing", form: ["_csrf": token, "name": "x"])
            #expect(response.status == .ok, "\(method)")
            #expect(response.text == "\(method.rawValue.lowercased()) done")
        }
        #expect(try await client.post("/thing", form: [:], headers: ["X-CSRF-Token": token]).status == .ok)
        // Each page gets a fresh token, and an older page's token still works.
        let second = try #require(csrfFieldValue(in: try await client.get("/form").text))
        #expect(second != token)
        #expect(try await client.post("/thing", form: ["_csrf": second]).status == .ok)
        #expect(try await client.post("/thing", form: ["_csrf": token]).status == .ok)
    }

    @Test func tokenInAMultipartFormIsAccepted() async throws {
        let views = try TemporaryFolder(["form.mustache": formTemplate])
        defer { views.remove() }
        let client = TestClient(csrfApp(views: views))
        client.sendsCsrfToken = false
        let token = try #require(csrfFieldValue(in: try await client.get("/form").text))
        func multipart(_ token: String) -> [UInt8] {
            Array("""
                --XyZ\r
                Content-Disposition: form-data; name="_csrf"\r
                \r
                \(token)\r
                --XyZ\r
                Content-Disposition: form-data; name="file"; filename="a.txt"\r
                Content-Type: text/plain\r
                \r
                hello\r
                --XyZ--\r

                """.utf8)
        }
        let headers: HttpHeaders = ["Content-Type": "multipart/form-data; boundary=XyZ"]
        #expect(try await client.request(.POST, "/thing", headers: headers, body: multipart(token)).status == .ok)
        #expect(try await client.request(.POST, "/thing", headers: headers, body: multipart(forgedToken)).status == .forbidden)
    }

    @Test func tokenInTheQueryStringIsNotAccepted() async throws {
        let views = try TemporaryFolder(["form.mustache": formTemplate])
        defer { views.remove() }
        let client = TestClient(csrfApp(views: views))
        client.sendsCsrfToken = false
        let token = try #require(csrfFieldValue(in: try await client.get("/form").text))
        #expect(try await client.post("/thing?_csrf=\(token)", form: [:]).status == .forbidden)
    }

    @Test func tokenIsNotValidAfterAnyCharacterChanges() async throws {
        let views = try TemporaryFolder(["form.mustache": formTemplate])
        defer { views.remove() }
        let client = TestClient(csrfApp(views: views))
        client.sendsCsrfToken = false
        let token = Array(try #require(csrfFieldValue(in: try await client.get("/form").text)))
        let alphabet = Array("ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789-_")
        var accepted: [Int] = []
        for index in token.indices {
            var changed = token
            changed[index] = alphabet[alphabet.firstIndex(of: changed[index])! ^ 1]
            if try await client.post("/thing", form: ["_csrf": String(changed)]).status != .forbidden { accepted.append(index) }
        }
        #expect(accepted.isEmpty, "token accepted after changing the character at \(accepted)")
        #expect(try await client.post("/thing", form: ["_csrf": String(token)]).status == .ok)
    }

    @Test func tokenFromAnotherClientsSessionIsRefused() async throws {
        let views = try TemporaryFolder(["form.mustache": formTemplate])
        defer { views.remove() }
        let app = csrfApp(views: views)
        let attacker = TestClient(app)
        let attackersToken = try #require(csrfFieldValue(in: try await attacker.get("/form").text))

        let victim = TestClient(app)
        victim.sendsCsrfToken = false
        _ = try await victim.get("/form")  // the victim has a session with its own secret
        #expect(try await victim.post("/thing", form: ["_csrf": attackersToken]).status == .forbidden)
        let fresh = TestClient(app)  // and one without any session
        fresh.sendsCsrfToken = false
        #expect(try await fresh.post("/thing", form: ["_csrf": attackersToken]).status == .forbidden)
    }

    @Test func anotherSitesOriginIsRefusedEvenWithAValidToken() async throws {
        let views = try TemporaryFolder(["form.mustache": formTemplate])
        defer { views.remove() }
        let client = TestClient(csrfApp(views: views))  // sends a valid token
        for origin in ["https://evil.example", "http://localhost.evil.example", "http://evil.example/localhost", "null"] {
            let refused = try await client.post("/thing", form: [:], headers: ["Origin": origin])
            #expect(refused.status == .forbidden, "Origin: \(origin)")
            #expect(refused.text.contains("Cross-site request refused"))
        }
        // JSON bodies, which need no token, are refused from another site as well.
        #expect(try await client.post("/api/items", json: ["a": 1], headers: ["Origin": "https://evil.example"]).status == .forbidden)

        let sameOrigin = try await client.post("/thing", form: [:], headers: ["Origin": "http://localhost"])
        #expect(sameOrigin.status == .ok)
        #expect(try await client.post("/thing", form: [:], headers: ["Origin": "http://example.com:8080", "Host": "example.com:8080"]).status == .ok)
    }

    /// A page served with `Referrer-Policy: no-referrer` (a set-up link's) posts its forms with
    /// `Origin: null`: taken when the browser says same-origin, and then only with the token.
    @Test func aNullOriginIsTakenOnlyFromTheSitesOwnPageWithItsToken() async throws {
        let views = try TemporaryFolder(["form.mustache": formTemplate])
        defer { views.remove() }
        let client = TestClient(csrfApp(views: views))  // sends a valid token
        let own: HttpHeaders = ["Origin": "null", "Sec-Fetch-Site": "same-origin"]
        #expect(try await client.post("/thing", form: [:], headers: own).status == .ok)
        // A sandboxed frame, another site's page, or a client that says nothing of where it is.
        for site in ["cross-site", "same-site", "none"] {
            #expect(try await client.post("/thing", form: [:], headers: ["Origin": "null", "Sec-Fetch-Site": site]).status == .forbidden, "\(site)")
        }
        #expect(try await client.post("/thing", form: [:], headers: ["Origin": "null"]).status == .forbidden)
        // Without the token, refused as any form is.
        let tokenless = TestClient(csrfApp(views: views))
        tokenless.sendsCsrfToken = false
        let refused = try await tokenless.post("/thing", form: [:], headers: own)
        #expect(refused.status == .forbidden && refused.text.contains("missing CSRF token"))
    }

    @Test func behindAProxyTheForwardedHostIsTheSite() async throws {
        let views = try TemporaryFolder(["form.mustache": formTemplate])
        defer { views.remove() }
        // nginx's default passes `Host: 127.0.0.1:4567`; the browser's Origin is the public name.
        let headers: HttpHeaders = [
            "Host": "127.0.0.1:4567", "Origin": "https://tools.example.com", "X-Forwarded-Host": "tools.example.com",
        ]
        let untrusted = TestClient(csrfApp(views: views))
        #expect(try await untrusted.post("/thing", form: [:], headers: headers).status == .forbidden)

        let client = TestClient(csrfApp(views: views) { $0.trustedProxies = ["127.0.0.1"] })
        #expect(try await client.post("/thing", form: [:], headers: headers).status == .ok)
        // The forwarded host is the site now: another origin is still refused.
        var evil = headers
        evil.replaceOrAdd(name: "Origin", value: "https://evil.example")
        #expect(try await client.post("/thing", form: [:], headers: evil).status == .forbidden)
        // Nor is the internal host the site any more, when the proxy names the public one.
        var internalOrigin = headers
        internalOrigin.replaceOrAdd(name: "Origin", value: "http://127.0.0.1:4567")
        #expect(try await client.post("/thing", form: [:], headers: internalOrigin).status == .forbidden)
        // From a peer that is not the proxy, the header counts for nothing.
        client.remoteAddress = "198.51.100.9"
        #expect(try await client.post("/thing", form: [:], headers: headers).status == .forbidden)
    }

    @Test func aTrustedOriginMayPost() async throws {
        let views = try TemporaryFolder(["form.mustache": formTemplate])
        defer { views.remove() }
        let client = TestClient(csrfApp(views: views) { $0.trustedOrigins = ["https://Tools.Example.com:443"] })
        let internalHost: HttpHeaders = ["Host": "127.0.0.1:4567"]
        var trusted = internalHost
        trusted.add(name: "Origin", value: "https://tools.example.com")
        #expect(try await client.post("/thing", form: [:], headers: trusted).status == .ok)
        for origin in ["http://tools.example.com", "https://tools.example.com:8443", "https://evil.example", "null", "capacitor://tools.example.com"] {
            var other = internalHost
            other.add(name: "Origin", value: origin)
            #expect(try await client.post("/thing", form: [:], headers: other).status == .forbidden, "Origin: \(origin)")
        }
        // A trusted origin still needs the token.
        client.sendsCsrfToken = false
        #expect(try await client.post("/thing", form: [:], headers: trusted).status == .forbidden)
    }

    @Test func defaultPortsAreTheSameOrigin() async throws {
        let views = try TemporaryFolder(["form.mustache": formTemplate])
        defer { views.remove() }
        let client = TestClient(csrfApp(views: views))
        for (origin, host) in [("https://example.com", "example.com:443"), ("http://example.com:80", "example.com"), ("http://[::1]:8080", "[::1]:8080")] {
            #expect(try await client.post("/thing", form: [:], headers: ["Origin": origin, "Host": host]).status == .ok, "\(origin) \(host)")
        }
        for (origin, host) in [("https://example.com", "example.com:8443"), ("http://example.com:443", "example.com"), ("http://[::1]:8080", "[::1]:8081")] {
            #expect(try await client.post("/thing", form: [:], headers: ["Origin": origin, "Host": host]).status == .forbidden, "\(origin) \(host)")
        }
    }

    @Test func crossSiteFetchMetadataIsRefused() async throws {
        let views = try TemporaryFolder(["form.mustache": formTemplate])
        defer { views.remove() }
        let client = TestClient(csrfApp(views: views))  // sends a valid token
        let refused = try await client.post("/thing", form: [:], headers: ["Sec-Fetch-Site": "cross-site"])
        #expect(refused.status == .forbidden)
        #expect(refused.text.contains("Cross-site request refused"))
        #expect(try await client.post("/thing", form: [:], headers: ["Sec-Fetch-Site": "same-origin"]).status == .ok)
        // A GET from another site is a link: it is answered.
        #expect(try await client.get("/note", headers: ["Sec-Fetch-Site": "cross-site", "Origin": "https://evil.example"]).status == .ok)
    }

    @Test func jsonBodiesNeedNoToken() async throws {
        let views = try TemporaryFolder(["form.mustache": formTemplate])
        defer { views.remove() }
        let client = TestClient(csrfApp(views: views))
        client.sendsCsrfToken = false
        let json = try await client.post("/api/items", json: ["name": "x"])
        #expect(json.status == .ok)
        #expect(json.text == "json done")
        let problemJson = try await client.request(
            .POST, "/api/items", headers: ["Content-Type": "application/problem+json; charset=utf-8"], body: Array("{}".utf8))
        #expect(problemJson.status == .ok)
        // JSON text sent as something a form can send is not JSON.
        let plain = try await client.request(.POST, "/api/items", headers: ["Content-Type": "text/plain"], body: Array("{}".utf8))
        #expect(plain.status == .forbidden)
    }

    @Test func skipCsrfExemptsMatchingPaths() async throws {
        let views = try TemporaryFolder(["form.mustache": formTemplate])
        defer { views.remove() }
        let app = csrfApp(views: views)
        app.skipCsrf("/hooks/*")
        let client = TestClient(app)
        client.sendsCsrfToken = false
        let hook = try await client.post("/hooks/github", form: ["payload": "{}"])
        #expect(hook.status == .ok)
        #expect(hook.text == "hook done")
        #expect(try await client.post("/thing", form: [:]).status == .forbidden)
    }

    @Test func safeMethodsNeedNoToken() async throws {
        let views = try TemporaryFolder(["form.mustache": formTemplate])
        defer { views.remove() }
        let client = TestClient(csrfApp(views: views))
        client.sendsCsrfToken = false
        #expect(try await client.get("/note").status == .ok)
        #expect(try await client.head("/note").status == .ok)
    }
}
