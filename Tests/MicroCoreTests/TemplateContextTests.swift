import Foundation
import MicroCore
import MicroTestSupport
import MicroTesting
import Testing

/// An app rendering the templates of `views`, with a plugin's value `made` under `name` that
/// counts how often it is made.
private func contextApp(_ views: TemporaryFolder, name: String = "stamp", made: Locked<Int>) -> App {
    let app = isolatedApp { $0.views = views.path }
    app.addTemplateValue(name) { _ in
        made.withLock { $0 += 1 }
        return "made"
    }
    return app
}

@Suite struct TemplateContextTests {
    @Test func aPluginsValueIsMadeOnlyWhenATemplateShowsItAndOncePerPage() async throws {
        let views = try TemporaryFolder([
            "layout.mustache": "<header>{{stamp}}</header>{{{yield}}}",
            "page.mustache": "<p>{{stamp}} {{stamp}}</p>",
            "plain.mustache": "<p>{{title}}</p>",
        ])
        defer { views.remove() }
        let made = Locked(0)
        let app = contextApp(views, made: made)
        app.get("/page") { request in try request.render("page") }
        app.get("/plain") { request in try request.render("plain", ["title": "T"], layout: nil) }
        let client = TestClient(app)
        #expect(try await client.get("/plain").text == "<p>T</p>")
        #expect(made.withLock { $0 } == 0)
        #expect(try await client.get("/page").text == "<header>made</header><p>made made</p>")
        #expect(made.withLock { $0 } == 1)
    }

    @Test func theRoutesValuesWinOverAPluginsAndAPluginsOverMicrosOwn() async throws {
        let views = try TemporaryFolder(["page.mustache": "{{stamp}} {{path}}"])
        defer { views.remove() }
        let made = Locked(0)
        let app = contextApp(views, made: made)
        // A plugin's value named like one of Micro's replaces it.
        app.addTemplateValue("path") { _ in "plugin's path" }
        app.get("/plugin") { request in try request.render("page") }
        app.get("/route") { request in try request.render("page", ["stamp": "route's", "path": "route's path"]) }
        let client = TestClient(app)
        #expect(try await client.get("/plugin").text == "made plugin&#39;s path")
        #expect(try await client.get("/route").text == "route&#39;s route&#39;s path")
        #expect(made.withLock { $0 } == 1)
    }

    @Test func aPluginsNilLeavesMicrosOwnValue() async throws {
        let views = try TemporaryFolder(["page.mustache": "{{path}}|{{stamp}}|{{^stamp}}none{{/stamp}}"])
        defer { views.remove() }
        let app = isolatedApp { $0.views = views.path }
        app.addTemplateValue("path") { _ in nil }
        app.addTemplateValue("stamp") { _ in nil }
        app.get("/here") { request in try request.render("page") }
        #expect(try await TestClient(app).get("/here").text == "/here||none")
    }

    @Test func theLayoutShowsThePageAtYieldWhateverTheRoutePassesAsYield() async throws {
        let views = try TemporaryFolder([
            "layout.mustache": "<{{title}}>{{{yield}}}{{#items}}[{{title}}]{{/items}}",
            "page.mustache": "{{yield}}|{{title}}",
        ])
        defer { views.remove() }
        let app = isolatedApp { $0.views = views.path }
        app.get("/") { request in try request.render("page", ["yield": "mine", "title": "T", "items": [1, 2]]) }
        #expect(try await TestClient(app).get("/").text == "<T>mine|T[T][T]")
    }
}
