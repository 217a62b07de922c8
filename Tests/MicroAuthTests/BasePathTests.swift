import Foundation
import MicroAuth
import MicroCore
import MicroTestSupport
import MicroTesting
import Testing

/// An app mounted under a sub-path behind a proxy: by the base path setting, or by a trusted
/// proxy's `X-Forwarded-Prefix`.
@Suite struct BasePathTests {
    private func makeApp(basePath: String = "", trustedProxies: [String] = [], forwardedPrefixes: [String] = []) throws -> (App, TemporaryFolder) {
        let folder = try TemporaryFolder()
        let app = isolatedApp { settings in
            settings.basePath = basePath
            settings.trustedProxies = trustedProxies
            settings.forwardedPrefixes = forwardedPrefixes
        }
        var authentication = Authentication(users: try UserStoreKind.yaml.make(in: folder))
        authentication.hasher = PasswordHasher(threads: 1)
        app.use(authentication)
        app.get("/protected") { request in
            try request.authenticate()
            return "protected at \(request.path), link \(request.url("/notes/7"))"
        }
        return (app, folder)
    }

    @Test func underABasePathRedirectsTheReturnPathAndLinksCarryIt() async throws {
        let (app, folder) = try makeApp(basePath: "/tools")
        defer { folder.remove() }
        let client = TestClient(app)
        #expect(try await client.get("/protected").status == .notFound)
        #expect(try await client.get("/toolsbox/protected").status == .notFound)
        #expect(try await client.get("/tools/protected?tab=2").location == "/tools/signin")
        let form = try await client.get("/tools/signin")
        #expect(form.status == .ok)
        #expect(form.text.contains(#"action="/tools/signin""#))
        let signedIn = try await client.post("/tools/signin", form: ["username": "user", "password": "secret123"])
        #expect(signedIn.location == "/tools/protected?tab=2")
        #expect(try await client.get("/tools/protected").text == "protected at /protected, link /tools/notes/7")
        #expect(signedIn.headers.first(name: "Set-Cookie")?.contains("Path=/tools;") == true)
        #expect(try await client.post("/tools/signout", form: [:]).location == "/tools/")
    }

    @Test func anUnlistedPrefixFromATrustedProxyIsIgnored() async throws {
        // nginx passes a client's own X-Forwarded-Prefix on unless told otherwise: from the
        // trusted proxy, a value the app does not list is the client's word.
        let (app, folder) = try makeApp(trustedProxies: ["10.0.0.1"], forwardedPrefixes: ["/tools"])
        defer { folder.remove() }
        let client = TestClient(app)
        client.remoteAddress = "10.0.0.1"
        let forged = try await client.get("/signin", headers: ["X-Forwarded-Prefix": "/evil"])
        #expect(forged.status == .ok)
        #expect(!forged.text.contains("/evil"))
        #expect(try await client.get("/protected", headers: ["X-Forwarded-Prefix": "/evil"]).location == "/signin")
        let signedIn = try await client.post("/signin", form: ["username": "user", "password": "secret123"], headers: ["X-Forwarded-Prefix": "/evil"])
        #expect(signedIn.headers.first(name: "Set-Cookie")?.contains("Path=/;") == true)
        // With no list at all, no prefix is believed.
        let (unlisted, other) = try makeApp(trustedProxies: ["10.0.0.1"])
        defer { other.remove() }
        let proxied = TestClient(unlisted)
        proxied.remoteAddress = "10.0.0.1"
        #expect(try await proxied.get("/protected", headers: ["X-Forwarded-Prefix": "/tools"]).location == "/signin")
    }

    @Test func aTrustedProxysForwardedPrefixIsUsedAndAnyoneElsesIgnored() async throws {
        let (app, folder) = try makeApp(trustedProxies: ["10.0.0.1"], forwardedPrefixes: ["/tools", "/x"])
        defer { folder.remove() }
        let client = TestClient(app)
        client.remoteAddress = "10.0.0.1"
        let prefixed: HttpHeaders = ["X-Forwarded-Prefix": "/tools"]
        #expect(try await client.get("/protected", headers: prefixed).location == "/tools/signin")
        // A hostile or malformed prefix is not a prefix.
        for hostile in ["//evil.example", "/tools\"><script>", "https://evil.example", "/a/../b", "/x/", "/t\u{0301}"] {
            #expect(try await client.get("/protected", headers: ["X-Forwarded-Prefix": hostile]).location == "/signin", "\(hostile)")
        }
        // From a client that is not the proxy, the header is the client's own: ignored.
        let direct = TestClient(app)
        direct.remoteAddress = "203.0.113.9"
        #expect(try await direct.get("/protected", headers: prefixed).location == "/signin")
    }

    @Test func aDoubleSlashStaysUnderTheBasePath() async throws {
        let (app, folder) = try makeApp(basePath: "/tools")
        defer { folder.remove() }
        // A catch-all that sends a path back (trailing-slash clean-up, say) stays on this site.
        app.get("/*") { request in try request.redirect(to: request.path + "/") }
        #expect(try await TestClient(app).get("/tools//evil.example").location == "/tools//evil.example/")
    }

    @Test func aBadBasePathStopsStartUp() async throws {
        for bad in ["tools", "/tools/", "/:x", "/a/../b"] {
            let app = isolatedApp { $0.basePath = bad }
            do {
                _ = try await app.respond(method: .GET, uri: "/")
                Issue.record("expected a configuration error for \(bad)")
            } catch let error as ConfigurationError {
                #expect(error.message.contains("settings.basePath"), "\(bad)")
            }
        }
        #expect(try Settings.fromProcess(["MICRO_BASE_PATH": "/ops"]).basePath == "/ops")
    }

    @Test func aBadBasePathFromTheEnvironmentNamesTheVariable() {
        for bad in ["tools", "/tools/", "/:x"] {
            do {
                _ = try Settings.fromProcess(["MICRO_BASE_PATH": bad])
                Issue.record("expected a configuration error for \(bad)")
            } catch {
                #expect(error.message.hasPrefix("MICRO_BASE_PATH: "), "\(error.message)")
                #expect(error.message.contains("base path"), "\(error.message)")
            }
        }
    }
}
