import Foundation
import MicroCore
import MicroTestSupport
import MicroTesting
import Testing

/// An app rendering the templates of `views`.
private func viewApp(_ views: TemporaryFolder, environment: Environment = .test) -> App {
    isolatedApp(environment: environment) { $0.views = views.path }
}

@Suite struct ViewTests {
    @Test func pageIsRenderedInsideTheLayout() async throws {
        let views = try TemporaryFolder([
            "layout.mustache": "<html><title>{{title}}</title><body>{{{yield}}}</body></html>",
            "page.mustache": "<h1>{{title}}</h1>",
        ])
        defer { views.remove() }
        let app = viewApp(views)
        app.get("/") { request in try request.render("page", ["title": "T"]) }
        let response = try await TestClient(app).get("/")
        #expect(response.status == .ok)
        #expect(response.contentType == "text/html; charset=utf-8")
        #expect(response.text == "<html><title>T</title><body><h1>T</h1></body></html>")
    }

    @Test func aNilValueShowsNoSection() async throws {
        let views = try TemporaryFolder(["page.mustache": "{{#next}}<a href=\"{{next}}\">Next</a>{{/next}}{{^next}}last{{/next}}"])
        defer { views.remove() }
        let app = viewApp(views)
        app.get("/:n") { request in
            let next: String? = request.params["n"] == "1" ? "/2" : nil
            return try request.render("page", ["next": next as Any])
        }
        #expect(try await TestClient(app).get("/1").text == #"<a href="/2">Next</a>"#)
        #expect(try await TestClient(app).get("/2").text == "last")
    }

    @Test func anotherLayoutOrNone() async throws {
        let views = try TemporaryFolder([
            "layout.mustache": "<main>{{{yield}}}</main>",
            "other.mustache": "<aside>{{{yield}}}</aside>",
            "page.mustache": "<p>{{title}}</p>",
        ])
        defer { views.remove() }
        let app = viewApp(views)
        app.get("/other") { request in try request.render("page", ["title": "T"], layout: "other") }
        app.get("/bare") { request in try request.render("page", ["title": "T"], layout: nil) }
        app.get("/missing-layout") { request in try request.render("page", layout: "nowhere") }
        let client = TestClient(app)
        #expect(try await client.get("/other").text == "<aside><p>T</p></aside>")
        #expect(try await client.get("/bare").text == "<p>T</p>")
        // A layout named explicitly must exist.
        let missing = try await client.get("/missing-layout")
        #expect(missing.status == .internalServerError)
        #expect(missing.text.contains("nowhere.mustache does not exist"))
    }

    @Test func withoutALayoutFileThePageStandsAlone() async throws {
        let views = try TemporaryFolder(["page.mustache": "<p>{{title}}</p>"])
        defer { views.remove() }
        let app = viewApp(views)
        app.get("/") { request in try request.render("page", ["title": "T"]) }
        #expect(try await TestClient(app).get("/").text == "<p>T</p>")
    }

    @Test func partialsAreIncluded() async throws {
        let views = try TemporaryFolder([
            "page.mustache": "<ul>{{#items}}{{> item}}{{/items}}</ul>{{> shared/footer}}",
            "item.mustache": "<li>{{name}}</li>",
            "shared/footer.mustache": "<footer>{{title}}</footer>",
        ])
        defer { views.remove() }
        let app = viewApp(views)
        app.get("/") { request in
            try request.render("page", ["title": "End", "items": [["name": "a"], ["name": "b"]]])
        }
        #expect(try await TestClient(app).get("/").text == "<ul><li>a</li><li>b</li></ul><footer>End</footer>")
    }

    @Test func valuesAreEscapedUnlessInTripleBraces() async throws {
        let views = try TemporaryFolder(["page.mustache": "{{value}}|{{{value}}}"])
        defer { views.remove() }
        let app = viewApp(views)
        app.get("/") { request in try request.render("page", ["value": #"<script>alert("x" & 'y')</script>"#], layout: nil) }
        #expect(try await TestClient(app).get("/").text
            == #"&lt;script&gt;alert(&quot;x&quot; &amp; &#39;y&#39;)&lt;/script&gt;|<script>alert("x" & 'y')</script>"#)
    }

    @Test func automaticValuesReachPageAndLayout() async throws {
        let views = try TemporaryFolder([
            "layout.mustache": "<nav>{{path}}</nav><div>{{flash.notice}}</div>{{{yield}}}",
            "page.mustache": "<form>{{{csrfField}}}</form><p>{{path}} {{flash.notice}}</p>",
        ])
        defer { views.remove() }
        let app = viewApp(views)
        app.post("/save") { request in
            request.flash["notice"] = "Saved <ok>"
            try request.redirect(to: "/here")
        }
        app.get("/here") { request in try request.render("page") }
        let client = TestClient(app)
        _ = try await client.post("/save", form: [:])
        let page = try await client.get("/here")
        #expect(page.text.hasPrefix("<nav>/here</nav><div>Saved &lt;ok&gt;</div><form><input type=\"hidden\" name=\"_csrf\" value=\""))
        #expect(page.text.hasSuffix("\"></form><p>/here Saved &lt;ok&gt;</p>"))
    }

    @Test func routeValuesWinOverTheAutomaticOnes() async throws {
        let views = try TemporaryFolder(["page.mustache": "{{path}}"])
        defer { views.remove() }
        let app = viewApp(views)
        app.get("/here") { request in try request.render("page") }
        app.get("/mine") { request in try request.render("page", ["path": "chosen"]) }
        let client = TestClient(app)
        #expect(try await client.get("/here?x=1").text == "/here")
        #expect(try await client.get("/mine").text == "chosen")
    }

    @Test func csrfFieldMakesAFormThatPostsSuccessfully() async throws {
        let views = try TemporaryFolder([
            "form.mustache": #"<form method="post" action="/notes">{{{csrfField}}}<input name="text"></form><i>{{csrfToken}}</i>"#
        ])
        defer { views.remove() }
        let app = viewApp(views)
        app.get("/notes/new") { request in try request.render("form") }
        app.post("/notes") { request in "saved \(request.params["text"] ?? "")" }
        let client = TestClient(app)
        client.sendsCsrfToken = false
        let form = try await client.get("/notes/new")
        #expect(form.text.contains(#"<input type="hidden" name="_csrf" value=""#))
        let token = try #require(csrfFieldValue(in: form.text))
        let posted = try await client.post("/notes", form: ["_csrf": token, "text": "hello"])
        #expect(posted.status == .ok)
        #expect(posted.text == "saved hello")
        // `csrfToken` works as well, in the header.
        let headerToken = try #require(form.text.split(separator: "<i>").last?.split(separator: "</i>").first.map(String.init))
        #expect(try await client.post("/notes", form: ["text": "again"], headers: ["X-CSRF-Token": headerToken]).status == .ok)
    }

    @Test func routeCanChooseAnotherContentType() async throws {
        let views = try TemporaryFolder(["feed.mustache": "<feed>{{title}}</feed>"])
        defer { views.remove() }
        let app = viewApp(views)
        app.get("/feed") { request in
            request.response.contentType = "application/atom+xml"
            return try request.render("feed", ["title": "News"], layout: nil)
        }
        let response = try await TestClient(app).get("/feed")
        #expect(response.contentType == "application/atom+xml")
        #expect(response.text == "<feed>News</feed>")
    }

    @Test func missingTemplateIsA500NamingIt() async throws {
        let views = try TemporaryFolder(["layout.mustache": "{{{yield}}}"])
        defer { views.remove() }
        let app = viewApp(views, environment: .development)
        app.get("/") { request in try request.render("absent") }
        let response = try await TestClient(app).get("/")
        #expect(response.status == .internalServerError)
        #expect(response.text.contains("absent.mustache does not exist"))
    }

    @Test func developmentReloadsAChangedTemplateWithoutRestart() async throws {
        let views = try TemporaryFolder(["page.mustache": "first {{title}}"])
        defer { views.remove() }
        let app = viewApp(views, environment: .development)
        app.get("/") { request in try request.render("page", ["title": "T"]) }
        let client = TestClient(app)
        #expect(try await client.get("/").text == "first T")
        try views.write("page.mustache", "second {{title}}", modified: Date().addingTimeInterval(5))
        #expect(try await client.get("/").text == "second T")
        // A template added later is found too.
        try views.write("layout.mustache", "<main>{{{yield}}}</main>", modified: Date().addingTimeInterval(10))
        #expect(try await client.get("/").text == "<main>second T</main>")
    }

    @Test func developmentShowsABrokenTemplateOnThePageUntilItIsFixed() async throws {
        let views = try TemporaryFolder(["page.mustache": "line one\nline two\n{{#items}}x{{/other}}\n"])
        defer { views.remove() }
        let app = viewApp(views, environment: .development)
        app.get("/") { request in try request.render("page") }
        let client = TestClient(app)
        let broken = try await client.get("/")
        #expect(broken.status == .internalServerError)
        #expect(broken.text.contains("page.mustache:3:"))
        try views.write("page.mustache", "fixed", modified: Date().addingTimeInterval(5))
        #expect(try await client.get("/").text == "fixed")
    }

    @Test(arguments: [Environment.production, .test])
    func brokenTemplateStopsStartUpNamingFileAndLine(environment: Environment) async throws {
        let views = try TemporaryFolder([
            "good.mustache": "fine",
            "broken.mustache": "line one\nline two\n{{#items}}x{{/other}}\n",
        ])
        defer { views.remove() }
        let app = viewApp(views, environment: environment)
        app.get("/") { _ in "up" }
        let error = try #require(await startFailure(app))
        #expect(error.message.contains(views.path + "/broken.mustache:3:"))
    }
}

@Suite struct LazyCsrfTests {
    @Test func aPageWithoutAFormStartsNoSession() async throws {
        let views = try TemporaryFolder(["plain.mustache": "<p>{{title}}</p>", "form.mustache": "<form>{{{csrfField}}}</form>"])
        defer { views.remove() }
        let app = isolatedApp { $0.views = views.path }
        app.get("/plain") { request in try request.render("plain", ["title": "Hi"]) }
        app.get("/form") { request in try request.render("form") }
        let client = TestClient(app)
        let plain = try await client.get("/plain")
        #expect(plain.text == "<p>Hi</p>")
        #expect(plain.headers["Set-Cookie"].isEmpty)
        let form = try await client.get("/form")
        #expect(form.text.contains(#"name="_csrf" value=""#))
        #expect(!form.headers["Set-Cookie"].isEmpty)
    }
}

/// Links in the views folder: followed inside it, refused out of it, each refusal said.
@Suite struct ViewLinkTests {
    @Test func aTemplateLinkedInsideTheFolderIsReadOneLinkedOutIsRefusedAndSaysSo() async throws {
        let folder = try TemporaryFolder([
            "views/real.mustache": "real", "views/shared/inner.mustache": "inner",
            "elsewhere/secret.mustache": "from elsewhere", "elsewhere/tools/dates.mustache": "dates",
        ])
        defer { folder.remove() }
        let views = folder.file("views")
        try FileManager.default.createSymbolicLink(atPath: views + "/alias.mustache", withDestinationPath: "real.mustache")
        try FileManager.default.createSymbolicLink(atPath: views + "/secret.mustache", withDestinationPath: "../elsewhere/secret.mustache")
        try FileManager.default.createSymbolicLink(atPath: views + "/tools", withDestinationPath: "../elsewhere/tools")
        let app = isolatedApp(environment: .development) { $0.views = views }
        app.get("/render") { request in
            do { return try request.render(request.params["name"] ?? "", layout: nil) } catch { return "refused: \(error)" }
        }
        let client = TestClient(app)
        #expect(try await client.get("/render?name=alias").text == "real")
        let secret = try await client.get("/render?name=secret").text
        #expect(!secret.contains("from elsewhere"))
        #expect(secret.contains("\(views)/secret.mustache is a link to ../elsewhere/secret.mustache, outside \(views)/"), "\(secret)")
        let dates = try await client.get("/render?name=tools/dates").text
        #expect(dates.contains("is behind \(views)/tools, a link (to ../elsewhere/tools)"), "\(dates)")
        #expect(try await client.get("/render?name=nothing").text.contains("\(views)/nothing.mustache does not exist."))
    }

    @Test func aViewsFolderThatIsALinkIsItsTarget() async throws {
        let folder = try TemporaryFolder(["real/page.mustache": "page", "real/tools/dates.mustache": "dates"])
        defer { folder.remove() }
        try FileManager.default.createSymbolicLink(atPath: folder.file("views"), withDestinationPath: folder.file("real"))
        let app = isolatedApp { $0.views = folder.file("views") }
        app.get("/page") { request in try request.render("page", layout: nil) }
        app.get("/dates") { request in try request.render("tools/dates", layout: nil) }
        let client = TestClient(app)
        #expect(try await client.get("/page").text == "page")
        #expect(try await client.get("/dates").text == "dates")
    }
}
