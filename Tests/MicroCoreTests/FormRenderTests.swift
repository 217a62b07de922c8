import Foundation
import MicroCore
import MicroTestSupport
import MicroTesting
import Testing

/// A refused form shown again: the values as sent, HTML-escaped, and the messages next to
/// their fields (`decode(_:orRender:)` and `render(_:_:form:)`).
@Suite struct FormRenderTests {
    struct Note: Codable, Validatable {
        var title: String
        var severity: Int
        var pager: Bool
        var address: Address?

        struct Address: Codable { var city: String }

        func validate(into errors: inout FieldErrors) {
            errors.check("title", title, .notBlank, .length(max: 20))
            errors.check("title", title, .matches(#/[^<>]*/#, "No angle brackets."))
            errors.check("severity", severity, .range(1...5))
        }
    }

    static let template = """
        {{#form.failed}}<p class="summary">{{form.message}}</p>{{/form.failed}}
        <form method="post" action="/notes">
        <input name="title" value="{{form.values.title}}"{{#form.errors.title}} aria-invalid="true"{{/form.errors.title}}>
        {{#form.errors.title}}<p id="title-error">{{.}}</p>{{/form.errors.title}}
        <ul>{{#form.messages.title}}<li>{{.}}</li>{{/form.messages.title}}</ul>
        <input name="severity" value="{{form.values.severity}}"{{#form.errors.severity}} aria-invalid="true"{{/form.errors.severity}}>
        {{#form.errors.severity}}<p id="severity-error">{{.}}</p>{{/form.errors.severity}}
        <input type="checkbox" name="pager"{{#form.values.pager}} checked{{/form.values.pager}}>
        <input name="address[city]" value="{{form.values.address.city}}">
        {{#form.errors.address.city}}<p id="city-error">{{.}}</p>{{/form.errors.address.city}}
        </form>
        """

    private func notesApp(_ views: TemporaryFolder) -> App {
        let app = isolatedApp { $0.views = views.path }
        app.get("/notes/new") { request in try request.render("new", ["heading": "New note"], layout: nil) }
        app.post("/notes") { request in
            let note = try request.decode(Note.self, orRender: "new", ["heading": "New note"], layout: nil)
            return "saved \(note.title)"
        }
        return app
    }

    private func views() throws -> TemporaryFolder {
        try TemporaryFolder(["new.mustache": "<h1>{{heading}}</h1>\n" + Self.template])
    }

    @Test func aFieldErrorTheRouteFindsItselfShowsTheFormAgainInOneCall() async throws {
        let views = try views()
        defer { views.remove() }
        let app = isolatedApp { $0.views = views.path }
        let pagesMade = Locked(0)
        @Sendable func heading() -> [String: Any] {
            pagesMade.withLock { $0 += 1 }
            return ["heading": "New note"]
        }
        app.post("/notes") { request in
            let note = try request.decode(Note.self, orRender: "new", heading(), layout: nil)
            if note.title == "taken" {
                try request.refuse(field: "title", "A note has <this> title already.", orRender: "new", heading(), layout: nil)
            }
            return "saved \(note.title)"
        }
        let client = TestClient(app)
        #expect(try await client.post("/notes", form: ["title": "fresh", "severity": "2"]).text == "saved fresh")
        #expect(pagesMade.withLock { $0 } == 0)
        let page = try await client.post("/notes", form: ["title": "taken", "severity": "2", "address[city]": "<Oslo>"])
        #expect(page.status == .unprocessableEntity)
        #expect(page.text.contains("<h1>New note</h1>"))
        #expect(page.text.contains(#"<p id="title-error">A note has &lt;this&gt; title already.</p>"#))
        #expect(page.text.contains(#"<input name="title" value="taken" aria-invalid="true">"#))
        #expect(page.text.contains(#"value="&lt;Oslo&gt;""#))
        #expect(pagesMade.withLock { $0 } == 1)
        let json = try await client.post("/notes", json: Note(title: "taken", severity: 2, pager: false))
        #expect(json.status == .unprocessableEntity)
        #expect(json.text.contains(#""fields":{"title":"A note has <this> title already."}"#))
    }

    @Test func theFirstVisitShowsEmptyInputsAndNoMessages() async throws {
        let views = try views()
        defer { views.remove() }
        let page = try await TestClient(notesApp(views)).get("/notes/new")
        #expect(page.status == .ok)
        #expect(page.text.contains(#"<input name="title" value="">"#))
        #expect(!page.text.contains("aria-invalid"))
        #expect(!page.text.contains("summary"))
        #expect(!page.text.contains("checked"))
    }

    @Test func aRefusedFormKeepsItsValuesEscapedAndShowsTheMessages() async throws {
        let views = try views()
        defer { views.remove() }
        let client = TestClient(notesApp(views))
        let hostile = #"<script>"&'"# + HostileText.metaRefresh
        let page = try await client.post("/notes", form: ["title": hostile, "severity": "9", "pager": "on", "address[city]": "Oslo & <Bergen>"])
        #expect(page.status == .unprocessableEntity)
        #expect(page.contentType == "text/html; charset=utf-8")
        #expect(page.text.contains("<h1>New note</h1>"))
        // The values as sent, every markup character escaped.
        #expect(page.text.contains(#"<input name="title" value="&lt;script&gt;&quot;&amp;&#39;x&quot;\#u{301}&gt;\#u{301}\#u{600}&lt;meta"#))
        #expect(!page.text.contains("<script>"))
        #expect(!page.text.contains("<meta"))
        #expect(page.text.contains(#"<input name="severity" value="9" aria-invalid="true">"#))
        #expect(page.text.contains(#"<input type="checkbox" name="pager" checked>"#))
        #expect(page.text.contains(#"<input name="address[city]" value="Oslo &amp; &lt;Bergen&gt;">"#))
        // The messages next to their fields: joined, and one by one.
        #expect(page.text.contains(#"<p id="title-error">Must be at most 20 characters. No angle brackets.</p>"#))
        #expect(page.text.contains("<ul><li>Must be at most 20 characters.</li><li>No angle brackets.</li></ul>"))
        #expect(page.text.contains(#"<p id="severity-error">Must be from 1 to 5.</p>"#))
        #expect(page.text.contains(#"<p class="summary">The form has invalid fields. title: Must be at most 20 characters. No angle brackets. severity: Must be from 1 to 5.</p>"#))
        #expect(!page.text.contains("city-error"))
    }

    @Test func aFieldThatDoesNotDecodeIsShownAgainWith400() async throws {
        let views = try views()
        defer { views.remove() }
        let page = try await TestClient(notesApp(views)).post("/notes", form: ["title": "Disk", "severity": "high", "address[zip]": "0150"])
        #expect(page.status == .badRequest)
        #expect(page.text.contains(#"<input name="severity" value="high" aria-invalid="true">"#))
        #expect(page.text.contains(#"<p id="severity-error">Not a whole number.</p>"#))
        // A nested field at fault is nested in the template too.
        #expect(page.text.contains(#"<p id="city-error">This field is required.</p>"#))
        #expect(page.text.contains(#"<input name="title" value="Disk">"#))
        #expect(!page.text.contains("title-error"))
    }

    @Test func aJsonClientGetsTheJsonErrorInstead() async throws {
        let views = try views()
        defer { views.remove() }
        let client = TestClient(notesApp(views))
        let asked = try await client.post("/notes", form: ["title": "", "severity": "1"], headers: ["Accept": "application/json"])
        #expect(asked.status == .unprocessableEntity)
        #expect(asked.contentType == "application/json")
        #expect(asked.text == #"{"error":"The form has invalid fields. title: This field is required.","fields":{"title":"This field is required."}}"#)
        struct Json: Codable { var title: String; var severity: Int; var pager: Bool }
        let sent = try await client.post("/notes", json: Json(title: "ok", severity: 0, pager: false))
        #expect(sent.status == .unprocessableEntity)
        #expect(try sent.decode(ErrorAnswer.self).fields == ["severity": "Must be from 1 to 5."])
    }

    @Test func anAcceptedFormGoesOn() async throws {
        let views = try views()
        defer { views.remove() }
        let saved = try await TestClient(notesApp(views)).post("/notes", form: ["title": "Disk", "severity": "2"])
        #expect(saved.status == .ok)
        #expect(saved.text == "saved Disk")
    }

    @Test func aFormErrorCaughtByTheRouteRendersWithItsStatus() async throws {
        let views = try views()
        defer { views.remove() }
        let app = isolatedApp { $0.views = views.path }
        app.post("/notes") { request in
            do {
                let note = try request.decode(Note.self)
                var errors = FieldErrors()
                if note.title == "Disk" { errors.add("title", "A note has this title already.") }
                guard errors.isEmpty else { throw FormError(errors, values: request.params.form) }
                return note.title
            } catch let error as FormError {
                return try request.render("new", ["heading": "Again"], form: error, layout: nil)
            }
        }
        let page = try await TestClient(app).post("/notes", form: ["title": "Disk", "severity": "2"])
        #expect(page.status == .unprocessableEntity)
        #expect(page.text.contains(#"<p id="title-error">A note has this title already.</p>"#))
        #expect(page.text.contains(#"<input name="title" value="Disk" aria-invalid="true">"#))
    }

    @Test func anEditPageFillsTheFormItself() async throws {
        let views = try views()
        defer { views.remove() }
        let app = isolatedApp { $0.views = views.path }
        app.get("/notes/1/edit") { request in
            try request.render("new", ["heading": "Edit", "form": ["values": ["title": "Disk \"full\"", "pager": true]]], layout: nil)
        }
        let page = try await TestClient(app).get("/notes/1/edit")
        #expect(page.text.contains(#"<input name="title" value="Disk &quot;full&quot;">"#))
        #expect(page.text.contains(#"<input type="checkbox" name="pager" checked>"#))
        #expect(!page.text.contains("aria-invalid"))
    }
}
