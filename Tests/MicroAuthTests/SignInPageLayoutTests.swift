import Foundation
import MicroAuth
import MicroCore
import MicroTestSupport
import MicroTesting
import Testing

/// The built-in sign-in and sign-out pages: in the app's layout when it has one (as the account
/// pages are), whole pages of their own when it has none, and the app's own templates first.
@Suite struct SignInPageLayoutTests {
    private func app(views: [String: String]) throws -> (App, TemporaryFolder) {
        let folder = try TemporaryFolder()
        for (name, text) in views { try folder.write("views/\(name).mustache", text) }
        let app = isolatedApp { $0.views = views.isEmpty ? nil : folder.file("views") }
        try folder.writeUsers("users.yml", [("user", TestHashes.secret123, nil)])
        var authentication = Authentication(users: try YamlUserStore(file: folder.file("users.yml")))
        authentication.hasher = PasswordHasher(threads: 1)
        app.use(authentication)
        app.get("/") { _ in "home" }
        return (app, folder)
    }

    private static let layout = "<!DOCTYPE html><title>{{title}}</title><nav data-app-layout>Lab</nav>{{#flashMessages}}<p class=\"flash\">{{message}}</p>{{/flashMessages}}{{{yield}}}"

    @Test func theBuiltInPagesAreShownInTheAppsLayout() async throws {
        let (app, folder) = try app(views: ["layout": Self.layout])
        defer { folder.remove() }
        let browser = TestClient(app, followRedirects: true)
        let page = try await browser.get("/signin")
        #expect(page.status == .ok)
        #expect(page.text.contains("<nav data-app-layout>Lab</nav>"))
        #expect(page.text.contains("<title>Sign In</title>"))
        #expect(page.text.contains(#"name="username""#) && page.text.contains(#"autocomplete="current-password""#))
        #expect(csrfFieldValue(in: page.text) != nil)
        // The layout shows the refusal's flash, once.
        let refused = try await browser.post("/signin", form: ["username": "user", "password": "wrong"])
        #expect(refused.text.contains("<nav data-app-layout>"))
        #expect(refused.text.components(separatedBy: "You could not be signed in").count == 2)
        let signedIn = try await browser.post("/signin", form: ["username": "user", "password": "secret123"])
        #expect(signedIn.text == "home")
        let signOut = try await browser.get("/signout")
        #expect(signOut.text.contains("<nav data-app-layout>") && signOut.text.contains("Signed in as User."))
        #expect(signOut.text.contains(#"action="/signout""#))
    }

    @Test func withoutALayoutTheyAreWholePages() async throws {
        let (app, folder) = try app(views: [:])
        defer { folder.remove() }
        let page = try await TestClient(app).get("/signin")
        #expect(page.text.hasPrefix("<!DOCTYPE html>"))
        #expect(page.text.contains(#"name="username""#))
    }

    @Test func theAppsOwnTemplatesComeFirst() async throws {
        let (app, folder) = try app(views: ["layout": Self.layout, "signin": "<form data-own-sign-in>{{{csrfField}}}</form>"])
        defer { folder.remove() }
        let page = try await TestClient(app).get("/signin")
        #expect(page.text.contains("<nav data-app-layout>") && page.text.contains("data-own-sign-in"))
        #expect(!page.text.contains(#"name="username""#))
    }
}
