import Foundation
import MicroCore
import MicroTestSupport
import MicroTesting
import Mustache
import Testing

/// Values in templates are escaped by bytes, whatever Characters they join into: in text and
/// attributes, sections, inverted sections, partials, inherited blocks, lambdas and custom
/// renderables. Triple braces and `{{& }}` stay the way to write markup.
@Suite struct TemplateEscapingTests {
    /// What a template shows for `text`.
    private func escaped(_ text: String) -> String { HostileText.referenceEscape(text) }

    private func app(_ files: [String: String], environment: Environment = .test) throws -> (App, TemporaryFolder) {
        let views = try TemporaryFolder(files)
        return (isolatedApp(environment: environment) { $0.views = views.path }, views)
    }

    @Test func valuesInTextAndAttributesOfPageAndLayout() async throws {
        let (app, views) = try app([
            "layout.mustache": "<title>{{v}}</title>{{{yield}}}",
            "page.mustache": #"<p>{{v}}</p><input value="{{v}}"><i title='{{v}}'>{{lowercased(v)}}</i>"#,
        ])
        defer { views.remove() }
        app.get("/:index") { request in
            try request.render("page", ["v": HostileText.all[Int(request.params["index"] ?? "") ?? 0].text])
        }
        let client = TestClient(app)
        for (index, payload) in HostileText.all.enumerated() {
            let v = escaped(payload.text)
            let page = try await client.get("/\(index)")
            #expect(page.text == #"<title>\#(v)</title><p>\#(v)</p><input value="\#(v)"><i title='\#(v)'>\#(escaped(payload.text.lowercased()))</i>"#,
                "\(payload.name)")
        }
    }

    @Test func valuesInSectionsAndInvertedSections() async throws {
        let (app, views) = try app([
            "page.mustache": "{{#list}}<li>{{.}}</li>{{/list}}{{#item}}<b>{{v}}</b>{{/item}}{{^missing}}<s>{{v}}</s>{{/missing}}"
                + "{{#flag}}<u>{{v}}</u>{{/flag}}{{^empty}}<q>{{v}}</q>{{/empty}}"
        ])
        defer { views.remove() }
        app.get("/:index") { request in
            let text = HostileText.all[Int(request.params["index"] ?? "") ?? 0].text
            return try request.render("page", ["v": text, "list": [text, text], "item": ["v": text], "flag": true, "empty": [String]()], layout: nil)
        }
        let client = TestClient(app)
        for (index, payload) in HostileText.all.enumerated() {
            let v = escaped(payload.text)
            #expect(try await client.get("/\(index)").text == "<li>\(v)</li><li>\(v)</li><b>\(v)</b><s>\(v)</s><u>\(v)</u><q>\(v)</q>", "\(payload.name)")
        }
    }

    @Test func valuesInPartialsAndDynamicPartials() async throws {
        let (app, views) = try app([
            "page.mustache": "{{> shared/part}}|{{>*partName}}|{{#item}}{{> shared/part}}{{/item}}",
            "shared/part.mustache": "<em>{{v}}</em>",
        ])
        defer { views.remove() }
        app.get("/:index") { request in
            let text = HostileText.all[Int(request.params["index"] ?? "") ?? 0].text
            return try request.render("page", ["v": text, "partName": "shared/part", "item": ["v": text + "!"]], layout: nil)
        }
        let client = TestClient(app)
        for (index, payload) in HostileText.all.enumerated() {
            let v = escaped(payload.text)
            #expect(try await client.get("/\(index)").text == "<em>\(v)</em>|<em>\(v)</em>|<em>\(escaped(payload.text + "!"))</em>", "\(payload.name)")
        }
    }

    @Test func valuesInInheritedAndDefaultBlocks() async throws {
        let (app, views) = try app([
            "child.mustache": "{{<base}}{{$body}}<main>{{v}}</main>{{/body}}{{/base}}",
            "base.mustache": "<header>{{v}}</header>{{$body}}<p>{{v}}</p>{{/body}}",
        ])
        defer { views.remove() }
        app.get("/:name/:index") { request in
            let text = HostileText.all[Int(request.params["index"] ?? "") ?? 0].text
            return try request.render(request.params["name"] ?? "", ["v": text], layout: nil)
        }
        let client = TestClient(app)
        for (index, payload) in HostileText.all.enumerated() {
            let v = escaped(payload.text)
            #expect(try await client.get("/child/\(index)").text == "<header>\(v)</header><main>\(v)</main>", "\(payload.name)")
            #expect(try await client.get("/base/\(index)").text == "<header>\(v)</header><p>\(v)</p>", "\(payload.name)")
        }
    }

    @Test func valuesFromLambdasAndCustomRenderables() async throws {
        let (app, views) = try app([
            "page.mustache": "{{lambda}}|{{#wrap}}{{v}}{{/wrap}}|{{custom}}|{{csrfToken}}"
        ])
        defer { views.remove() }
        app.get("/:index") { request in
            let text = HostileText.all[Int(request.params["index"] ?? "") ?? 0].text
            let values: [String: Any] = [
                "v": text,
                "lambda": MustacheLambda { text },
                // A section lambda returns template text: its markup is the app's, its values
                // are escaped.
                "wrap": MustacheLambda { (section: String) in "<div>" + section + "</div>" },
                "custom": Shown(renderText: text),
            ]
            return try request.render("page", values, layout: nil)
        }
        let client = TestClient(app)
        for (index, payload) in HostileText.all.enumerated() {
            let v = escaped(payload.text)
            let page = try await client.get("/\(index)")
            #expect(page.text.hasPrefix("\(v)|<div>\(v)</div>|\(v)|"), "\(payload.name)")
        }
    }

    @Test func tripleBracesAndAmpersandShowMarkup() async throws {
        let (app, views) = try app(["page.mustache": "{{{v}}}|{{&v}}|{{v}}"])
        defer { views.remove() }
        app.get("/") { request in try request.render("page", ["v": HostileText.metaRefresh], layout: nil) }
        let text = HostileText.metaRefresh
        #expect(try await TestClient(app).get("/").text == "\(text)|\(text)|\(escaped(text))")
    }

    @Test func aTemplateCanStillChooseTextOrHtml() async throws {
        let (app, views) = try app([
            "plain.mustache": "{{% CONTENT_TYPE: TEXT}}\n{{v}}|{{> part}}|{{% CONTENT_TYPE: HTML}}{{v}}",
            "part.mustache": "<em>{{v}}</em>",
        ])
        defer { views.remove() }
        app.get("/") { request in try request.render("plain", ["v": HostileText.metaRefresh], layout: nil) }
        let text = HostileText.metaRefresh
        // A partial starts escaped whatever its caller chose; HTML named by the pragma is
        // escaped by bytes too.
        #expect(try await TestClient(app).get("/").text == "\(text)|<em>\(escaped(text))</em>|\(escaped(text))")
    }

    @Test func standaloneTagsOnTheFirstLineStillVanish() async throws {
        let (app, views) = try app([
            "list.mustache": "{{#items}}\n<li>{{.}}</li>\n{{/items}}\n",
            "indented.mustache": "  {{> item}}\nend\n",
            "item.mustache": "<i>{{v}}</i>\n",
            "comment.mustache": "{{! a note }}\nbody\n",
        ])
        defer { views.remove() }
        app.get("/:name") { request in
            try request.render(request.params["name"] ?? "", ["items": ["a", "b"], "v": "V"], layout: nil)
        }
        let client = TestClient(app)
        #expect(try await client.get("/list").text == "<li>a</li>\n<li>b</li>\n")
        #expect(try await client.get("/indented").text == "  <i>V</i>\nend\n")
        #expect(try await client.get("/comment").text == "body\n")
    }

    @Test func aBrokenTemplateIsReportedAtItsOwnLineAndColumn() async throws {
        for (template, position, line) in [
            ("line one\nline two\n{{#items}}x{{/other}}\n", "3:15", "{{#items}}x{{/other}}"),
            ("{{#a}}x{{/b}}", "1:11", "{{#a}}x{{/b}}"),
            ("{{#a}}\n  {{/b}}\n", "2:6", "  {{/b}}"),
        ] {
            let (app, views) = try app(["good.mustache": "fine", "broken.mustache": template], environment: .production)
            defer { views.remove() }
            app.get("/") { _ in "up" }
            let error = try #require(await startFailure(app))
            #expect(error.message.hasPrefix(views.path + "/broken.mustache:\(position): template error: "), "\(error.message)")
            #expect(error.message.hasSuffix("\n    " + line), "\(error.message)")
        }
    }
}

/// A value that renders itself.
private struct Shown: MustacheCustomRenderable {
    var renderText: String
    var isNull: Bool { false }
}
