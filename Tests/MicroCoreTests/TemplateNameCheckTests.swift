import Foundation
@testable import MicroCore
import MicroTestSupport
import MicroTesting
import Testing

/// In development and test, a page that names a value it was not given is an error naming the
/// template, the line and the name; production renders it empty, as Mustache does.
@Suite struct TemplateNameCheckTests {
    private struct Item {
        var title: String
        var note: String?
    }

    private func app(_ files: [String: String], environment: Environment = .test) throws -> (App, TemporaryFolder) {
        let views = try TemporaryFolder(files)
        return (isolatedApp(environment: environment) { $0.views = views.path }, views)
    }

    @Test func aMisspeltNameIsAnErrorNamingTheTemplateLineAndName() async throws {
        let (app, views) = try app(["page.mustache": "<h1>{{title}}</h1>\n<p>{{titel}}</p>"])
        defer { views.remove() }
        app.get("/") { request in try request.render("page", ["title": "T"]) }
        let page = try await TestClient(app).get("/")
        #expect(page.status == .internalServerError)
        #expect(page.text.contains("page.mustache:2: {{titel}} names a value this page was not given (the route gave title)"), "\(page.text)")
    }

    @Test func productionRendersItEmpty() async throws {
        let (app, views) = try app(["page.mustache": "<p>{{titel}}</p>"], environment: .production)
        defer { views.remove() }
        app.get("/") { request in try request.render("page", ["title": "T"]) }
        let page = try await TestClient(app).get("/")
        #expect(page.status == .ok)
        #expect(page.text == "<p></p>")
    }

    @Test func sectionsMayNameWhatIsMissingAndAnEmptyValueIsAValue() async throws {
        let (app, views) = try app([
            "page.mustache": "{{#error}}<p>{{error}}</p>{{/error}}{{^rows}}none{{/rows}}[{{older}}][{{flash.notice}}][{{form.values.title}}]"
        ])
        defer { views.remove() }
        app.get("/") { request in try request.render("page", ["older": nil as String? as Any]) }
        let page = try await TestClient(app).get("/")
        #expect(page.status == .ok, "\(page.text)")
        #expect(page.text == "none[][][]")
    }

    @Test func aPropertyOfAStructIsCheckedAndANilOneIsAValue() async throws {
        let (app, views) = try app([
            "good.mustache": "{{item.title}}[{{item.note}}]", "bad.mustache": "{{item.titel}}",
            "inside.mustache": "{{#items}}{{whatever}}{{/items}}",
        ])
        defer { views.remove() }
        let item = Item(title: "Drill", note: nil)
        app.get("/good") { request in try request.render("good", ["item": item]) }
        app.get("/bad") { request in try request.render("bad", ["item": item]) }
        // Inside a section, a name may be the row's: only rendering knows, and it is not checked.
        app.get("/inside") { request in try request.render("inside", ["items": [item]]) }
        let client = TestClient(app)
        #expect(try await client.get("/good").text == "Drill[]")
        let bad = try await client.get("/bad")
        #expect(bad.status == .internalServerError)
        #expect(bad.text.contains("bad.mustache:1: {{item.titel}}"))
        #expect(try await client.get("/inside").status == .ok)
    }

    @Test func transformsPartialsAndTheLayoutAreChecked() async throws {
        let (app, views) = try app([
            "layout.mustache": "<title>{{title}}</title>{{{yield}}}",
            "page.mustache": "{{ uppercased(title) }}\n{{> part}}",
            "part.mustache": "\n\n{{{ lowercased(sumary) }}}",
            "shout.mustache": "{{ uppercased(titel) }}",
            "odd.mustache": "{{=<% %>=}}<% anything %>",
        ])
        defer { views.remove() }
        app.get("/page") { request in try request.render("page", ["title": "T"]) }
        app.get("/untitled") { request in try request.render("odd") }
        app.get("/shout") { request in try request.render("shout", ["title": "T"], layout: nil) }
        app.get("/odd") { request in try request.render("odd", layout: nil) }
        let client = TestClient(app)
        let page = try await client.get("/page")
        #expect(page.text.contains("part.mustache:3: {{sumary}}"), "\(page.text)")
        let untitled = try await client.get("/untitled")
        #expect(untitled.text.contains("layout.mustache:1: {{title}}"), "\(untitled.text)")
        #expect(try await client.get("/shout").text.contains("shout.mustache:1: {{titel}}"))
        // A template that sets other delimiters is read up to there only.
        #expect(try await client.get("/odd").status == .ok)
    }

    @Test func whatAPluginAddsIsKnownEvenWithoutAValue() async throws {
        let (app, views) = try app(["page.mustache": "[{{currentThing}}][{{path}}]"])
        defer { views.remove() }
        app.addTemplateValue("currentThing") { _ in nil }
        app.get("/") { request in try request.render("page") }
        let page = try await TestClient(app).get("/")
        #expect(page.status == .ok, "\(page.text)")
        #expect(page.text == "[][/]")
    }

    @Test func tagsOutsideSectionsAreReadWithTheirLines() {
        let tags = TopLevelTags("a {{x}}\n{{#s}}{{y}}\n{{/s}}{{{ z }}}\n{{! {{no}} }}{{& w.v }}{{> p}}{{#s}}{{> q}}{{/s}}{{.}}")
        #expect(tags.variables == [.init(path: ["x"], line: 1), .init(path: ["z"], line: 3), .init(path: ["w", "v"], line: 4)])
        #expect(tags.partials == ["p"])
    }
}
