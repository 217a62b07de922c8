import Foundation
import MicroAuth
@testable import MicroCore
import MicroTestSupport
import MicroTesting
import Testing

/// DNS rebinding: a request for a host the app was not given is refused before anything reads
/// it; IP literals and localhost need no setting.
@Suite struct AllowedHostsTests {
    private func makeApp(_ configure: @escaping (inout Settings) -> Void = { _ in }) throws -> (App, TemporaryFolder) {
        let folder = try TemporaryFolder()
        let app = isolatedApp(configure: configure)
        var authentication = Authentication(users: try UserStoreKind.yaml.make(in: folder))
        authentication.hasher = PasswordHasher(threads: 1)
        app.use(authentication)
        app.get("/") { _ in "home" }
        app.get("/admin/users") { request in
            try request.authenticate()
            return "the users"
        }
        return (app, folder)
    }

    @Test func ipLiteralsAndLocalhostAreAllowedWithoutASetting() async throws {
        let (app, folder) = try makeApp()
        defer { folder.remove() }
        let client = TestClient(app)
        for host in ["127.0.0.1", "127.0.0.1:4567", "192.168.1.20:8080", "[::1]:4567", "[fe80::1]", "localhost", "LOCALHOST:4567", "localhost."] {
            #expect(try await client.get("/", headers: ["Host": host]).status == .ok, "\(host)")
        }
    }

    @Test func aRebindingNameIsRefusedBeforeCredentialsOrFormsAreRead() async throws {
        let (app, folder) = try makeApp()
        defer { folder.remove() }
        let client = TestClient(app)
        let page = try await client.get("/", headers: ["Host": "rebind.evil.example:4567"])
        #expect(page.status == .misdirectedRequest)
        #expect(page.text.contains("settings.allowedHosts (MICRO_ALLOWED_HOSTS)"))
        #expect(page.headers.first(name: "Set-Cookie") == nil)
        // HTTP Basic with the right password, as the rebound page would send it: refused unread.
        let basic = "Basic " + Data("user:secret123".utf8).base64EncodedString()
        let script = try await client.get(
            "/admin/users", headers: ["Host": "rebind.evil.example:4567", "Authorization": basic, "Accept": "application/json"])
        #expect(script.status == .misdirectedRequest)
        #expect(!script.text.contains("the users"))
        // The sign-in form with a matching Origin, which the CSRF check alone would let through.
        let signIn = try await client.post(
            "/signin", form: ["username": "user", "password": "secret123"],
            headers: ["Host": "rebind.evil.example:4567", "Origin": "http://rebind.evil.example:4567"])
        #expect(signIn.status == .misdirectedRequest)
        #expect(signIn.headers.first(name: "Set-Cookie") == nil)
        // Malformed hosts and hostile text are refused too, and the page escapes what it shows.
        for host in [
            "", ":80", "evil.example:http", "[::1", "[]", "1.2.3", "1..2.3", "256.1.1.1", "01.2.3.4", "1.2.3.4:123456",
            "<script>x</script>", "e\u{0301}vil.example", "localhost.evil.example", "xlocalhost",
        ] {
            let answer = try await client.get("/", headers: ["Host": host])
            #expect(answer.status == .misdirectedRequest, "\(host)")
            #expect(!answer.text.contains("<script>"))
        }
    }

    @Test func namesComeFromTheSettingWithDomainsAndThePublicUrl() async throws {
        let (app, folder) = try makeApp {
            $0.allowedHosts = ["tools.example.com", ".corp.example"]
            $0.publicUrl = "https://public.example.org"
        }
        defer { folder.remove() }
        let client = TestClient(app)
        for host in ["tools.example.com", "Tools.Example.Com:8443", "tools.example.com.", "corp.example", "a.b.corp.example", "public.example.org:443"] {
            #expect(try await client.get("/", headers: ["Host": host]).status == .ok, "\(host)")
        }
        for host in ["example.com", "tools.example.com.evil", "evilcorp.example", "xtools.example.com", "corp.example.evil"] {
            #expect(try await client.get("/", headers: ["Host": host]).status == .misdirectedRequest, "\(host)")
        }
    }

    @Test func behindATrustedProxyTheForwardedHostIsChecked() async throws {
        let (app, folder) = try makeApp {
            $0.trustedProxies = ["10.0.0.1"]
            $0.allowedHosts = ["tools.example.com"]
        }
        defer { folder.remove() }
        let proxied = TestClient(app)
        proxied.remoteAddress = "10.0.0.1"
        // nginx's upstream name in Host, the browser's host in X-Forwarded-Host.
        #expect(try await proxied.get("/", headers: ["Host": "micro", "X-Forwarded-Host": "tools.example.com"]).status == .ok)
        #expect(try await proxied.get("/", headers: ["Host": "127.0.0.1", "X-Forwarded-Host": "rebind.evil.example"]).status == .misdirectedRequest)
        // From anyone else the forwarded header is not believed: the Host is what counts.
        let direct = TestClient(app)
        direct.remoteAddress = "203.0.113.9"
        #expect(try await direct.get("/", headers: ["Host": "evil.example", "X-Forwarded-Host": "tools.example.com"]).status == .misdirectedRequest)
    }

    @Test func badSettingsAndVariablesAreNamed() throws {
        #expect(throws: ConfigurationError.self) { try Settings.fromProcess(["MICRO_ALLOWED_HOSTS": "https://tools.example.com"]) }
        #expect(throws: ConfigurationError.self) { try Settings.fromProcess(["MICRO_ALLOWED_HOSTS": "tools.example.com:443"]) }
        do {
            _ = try Settings.fromProcess(["MICRO_ALLOWED_HOSTS": "ok.example,bad host"])
            Issue.record("a host with a space was accepted")
        } catch {
            #expect(error.message.contains("MICRO_ALLOWED_HOSTS has 'bad host'"))
        }
        let settings = try Settings.fromProcess(["MICRO_ALLOWED_HOSTS": " a.example , .b.example ,"])
        #expect(settings.allowedHosts == ["a.example", ".b.example"])
        var bad = Settings()
        bad.allowedHosts = ["a/b"]
        #expect(bad.problems().contains { $0.contains("settings.allowedHosts has 'a/b'") })
    }
}
