import Foundation
import Micro
import MicroTestSupport
import MicroTesting
import Testing
@testable import SampleApp

/// The sample app as `swift run SampleApp` serves it, with the repository's views, public
/// folder and credentials.yml.
func sampleClient(followRedirects: Bool = false) throws -> TestClient {
    TestClient(try sampleApp(), followRedirects: followRedirects)
}

/// The sign-ins of the sample apps in these tests: the process's shared hasher turns a check
/// away with a 503 beyond its capacity, as an app should under a flood, and the suite's tests
/// running at once, each signing in, are not one.
let testSignInHasher = PasswordHasher(threads: 1, capacity: 10_000)

/// The sample app over the users of `credentials` (the repository's file by default), in the
/// test environment, with `configure`'s settings.
func sampleApp(
    credentials: String = "credentials.yml", toolHasher: PasswordHasher = ToolRoutes.toolHasher,
    configure: (inout Settings) -> Void = { _ in }
) throws -> App {
    var settings = Settings()
    settings.environment = .test
    settings.accessLog = false
    configure(&settings)
    let app = App(settings: settings, logger: .quietForTests)
    SampleRoutes.install(in: app, users: try YamlUserStore(file: credentials), toolHasher: toolHasher, signInHasher: testSignInHasher)
    return app
}

@Suite struct HomePageTests {
    @Test func homePageListsTheCategoriesInTheLayout() async throws {
        let page = try await sampleClient().get("/")
        #expect(page.status == .ok)
        #expect(page.contentType == "text/html; charset=utf-8")
        #expect(page.text.contains("Date Conversion"))
        #expect(page.text.contains(#"href="/tools/data-encoding""#))
        #expect(page.text.contains(#"<link rel="stylesheet" href="/css/app.css">"#))
        #expect(page.text.contains(#"href="/signin""#))
        #expect(page.headers.first(name: "Content-Security-Policy") != nil)
    }

    @Test func stylesheetIsServedFromPublic() async throws {
        let css = try await sampleClient().get("/css/app.css")
        #expect(css.status == .ok)
        #expect(css.contentType == "text/css; charset=utf-8")
        #expect(css.text.contains("prefers-color-scheme: dark"))
    }

    @Test func theSeedsDemoUserSignsInAndSeesTheProtectedPage() async throws {
        let client = try sampleClient()
        let refused = try await client.get("/protected")
        #expect(refused.location == "/signin")
        let form = try await client.get("/signin")
        #expect(form.text.contains(#"name="_csrf""#))
        let signedIn = try await client.post("/signin", form: ["username": "User", "password": "secret123"])
        #expect(signedIn.location == "/protected")
        let page = try await client.get("/protected")
        #expect(page.text.contains("Welcome back User."))
        #expect(page.text.contains("Only signed-in users see this page, User."))
        // The layout carries the sign-out form on signed-in pages.
        #expect(page.text.contains(#"action="/signout""#))
        let signedOut = try await client.post("/signout", form: [:])
        #expect(signedOut.location == "/")
        #expect(try await client.get("/").text.contains("You have been signed out."))
    }
}
