import Foundation
import MicroCore
import MicroTestSupport
import MicroTesting
import Testing

/// `settings.publicUrl`: an allowed host, a trusted origin, the base path, absolute URLs and
/// the `Secure` cookie.
@Suite struct PublicUrlTests {
    @Test func itIsParsedIntoOriginHostAndPath() throws {
        let plain = try PublicUrl("https://Tools.Example.com/")
        #expect(plain.origin == "https://tools.example.com")
        #expect(plain.host == "tools.example.com")
        #expect(plain.path == "")
        let mounted = try PublicUrl("http://example.com:8080/tools")
        #expect(mounted.origin == "http://example.com:8080")
        #expect(mounted.path == "/tools")
        #expect(try PublicUrl("https://[::1]:8443").host == "[::1]")
        for bad in ["tools.example.com", "ftp://example.com", "https://", "https://a.example/x/../y", "https://user@a.example", "https://a.example/t?x=1"] {
            #expect(throws: ConfigurationError.self, "\(bad)") { try PublicUrl(bad) }
        }
        do {
            _ = try Settings.fromProcess(["MICRO_PUBLIC_URL": "tools.example.com"])
            Issue.record("accepted")
        } catch {
            #expect(error.message.hasPrefix("MICRO_PUBLIC_URL:"))
        }
        #expect(throws: ConfigurationError.self) { try Settings.fromProcess(["MICRO_PUBLIC_URL": "https://a.example/one", "MICRO_BASE_PATH": "/two"]) }
    }

    @Test func itsPathIsTheBasePathAndAbsoluteUrlsStartWithIt() async throws {
        let app = isolatedApp { $0.publicUrl = "https://tools.example.com/tools" }
        app.get("/where") { request in request.absoluteUrl("/auth/callback") }
        let client = TestClient(app)
        #expect(try await client.get("/where").status == .notFound)
        #expect(try await client.get("/tools/where").text == "https://tools.example.com/tools/auth/callback")
    }

    @Test func withoutOneAbsoluteUrlsUseTheRequestsSchemeAndHost() async throws {
        let app = isolatedApp { $0.trustedProxies = ["10.0.0.1"] }
        app.get("/where") { request in request.absoluteUrl("/auth/callback") }
        let client = TestClient(app)
        #expect(try await client.get("/where", headers: ["Host": "127.0.0.1:4567"]).text == "http://127.0.0.1:4567/auth/callback")
        client.remoteAddress = "10.0.0.1"
        let proxied = try await client.get("/where", headers: ["Host": "micro", "X-Forwarded-Host": "localhost:8443", "X-Forwarded-Proto": "https"])
        #expect(proxied.text == "https://localhost:8443/auth/callback")
    }

    @Test func anHttpsPublicUrlMakesTheCookieSecureInDevelopment() async throws {
        let app = isolatedApp(environment: .development) { $0.publicUrl = "https://tools.example.com" }
        app.get("/visit") { request in
            request.session["seen"] = "yes"
            return "ok"
        }
        let cookie = try await TestClient(app).get("/visit").headers.first(name: "Set-Cookie") ?? ""
        #expect(cookie.contains("Secure"))
        let plain = isolatedApp(environment: .development)
        plain.get("/visit") { request in
            request.session["seen"] = "yes"
            return "ok"
        }
        #expect(try await TestClient(plain).get("/visit").headers.first(name: "Set-Cookie")?.contains("Secure") == false)
    }

    @Test func itsOriginIsTrustedByTheCsrfCheck() async throws {
        // A proxy that passes neither the browser's Host nor X-Forwarded-Host.
        let app = isolatedApp { $0.publicUrl = "https://tools.example.com" }
        app.post("/save") { _ in "saved" }
        let client = TestClient(app)
        #expect(try await client.post("/save", form: [:], headers: ["Host": "127.0.0.1:4567", "Origin": "https://tools.example.com"]).text == "saved")
        #expect(try await client.post("/save", form: [:], headers: ["Host": "127.0.0.1:4567", "Origin": "https://evil.example"]).status == .forbidden)
    }
}
