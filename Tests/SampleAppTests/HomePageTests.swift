import Micro
import MicroTesting
import Testing
@testable import SampleApp

@Suite struct HomePageTests {
    private func client() -> TestClient {
        var settings = Settings()
        settings.environment = .test
        settings.accessLog = false
        let app = App(settings: settings)
        SampleRoutes.install(in: app)
        return TestClient(app)
    }

    @Test func homePageListsTheCategoriesAndLinksTheStylesheet() async throws {
        let page = try await client().get("/")
        #expect(page.status == .ok)
        #expect(page.contentType == "text/html; charset=utf-8")
        #expect(page.text.contains("Date Conversion"))
        #expect(page.text.contains(#"<link rel="stylesheet" href="/css/app.css">"#))
    }

    @Test func stylesheetIsServedFromPublic() async throws {
        let css = try await client().get("/css/app.css")
        #expect(css.status == .ok)
        #expect(css.contentType == "text/css; charset=utf-8")
        #expect(css.text.contains("prefers-color-scheme: dark"))
    }
}
