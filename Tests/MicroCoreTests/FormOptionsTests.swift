import Foundation
import MicroCore
import MicroTestSupport
import MicroTesting
import Testing

/// A select and checkboxes that keep their choice: the record's values on the form's first
/// showing, the values sent when it is shown again after a refusal, and a value never offered
/// refused next to the field.
@Suite struct FormOptionsTests {
    private static let statuses = [("received", "Received"), ("tested", "Tested"), ("archived", "Archived")]
    private static let tags = ["urgent", "fragile", "cold"]

    private struct SampleForm: Decodable, Validatable {
        var status: String
        var tags: [String]?

        func validate(into errors: inout FieldErrors) {
            errors.check("status", status, .oneOf(FormOptionsTests.statuses.map(\.0)))
            errors.check("tags", tags, .each(oneOf: FormOptionsTests.tags))
        }
    }

    private func app() throws -> (App, TemporaryFolder) {
        let views = try TemporaryFolder([
            "edit.mustache": """
                <select name="status">{{#statuses}}<option value="{{value}}"{{#chosen}} selected{{/chosen}}>{{label}}</option>{{/statuses}}</select>
                <input type="hidden" name="tags" value="">{{#tags}}<input type="checkbox" name="tags" value="{{value}}"{{#chosen}} checked{{/chosen}}>{{/tags}}
                {{#form.errors.status}}<p class="error">{{.}}</p>{{/form.errors.status}}{{#form.errors.tags}}<p class="error">{{.}}</p>{{/form.errors.tags}}
                """
        ])
        let app = isolatedApp { $0.views = views.path }
        let values = { @Sendable (request: Request) -> [String: Any] in
            [
                "statuses": request.options("status", Self.statuses, chosen: ["tested"]),
                "tags": request.options("tags", Self.tags, chosen: ["cold"]),
            ]
        }
        app.get("/edit") { request in try request.render("edit", values(request)) }
        app.post("/edit") { request in
            _ = try request.decode(SampleForm.self, orRender: "edit", values(request))
            return "saved"
        }
        return (app, views)
    }

    @Test func theFirstShowingMarksTheRecordsValues() async throws {
        let (app, views) = try app()
        defer { views.remove() }
        let page = try await TestClient(app).get("/edit").text
        #expect(page.contains(#"<option value="tested" selected>Tested</option>"#))
        #expect(page.components(separatedBy: " selected").count == 2)
        #expect(page.contains(#"value="cold" checked"#) && page.components(separatedBy: " checked").count == 2)
    }

    @Test func aRefusedFormIsShownAgainWithWhatWasSent() async throws {
        let (app, views) = try app()
        defer { views.remove() }
        let client = TestClient(app)
        // A value never offered: refused next to the field, the other choices as sent.
        let refused = try await client.post("/edit", form: ["status": "lost", "tags": "urgent", "tags": "fragile"])
        #expect(refused.status == .unprocessableEntity)
        #expect(refused.text.contains(#"<p class="error">Choose one of the options.</p>"#))
        #expect(!refused.text.contains(" selected"))
        #expect(refused.text.contains(#"value="urgent" checked"#) && refused.text.contains(#"value="fragile" checked"#))
        #expect(!refused.text.contains(#"value="cold" checked"#))
        // Every checkbox unticked (the hidden field alone): none shown ticked again, not the record's.
        let unticked = try await client.post("/edit", form: ["status": "nonsense", "tags": ""])
        #expect(!unticked.text.contains(" checked"))
        // A tag never offered.
        let badTag = try await client.post("/edit", form: ["status": "tested", "tags": "<script>"])
        #expect(badTag.status == .unprocessableEntity && badTag.text.contains("Choose among the options."))
        #expect(badTag.text.contains(#"<option value="tested" selected>"#) && !badTag.text.contains("<script>"))
        #expect(try await client.post("/edit", form: ["status": "archived", "tags": "", "tags": "cold"]).text == "saved")
    }

    @Test func anotherFormOfThePageSentLeavesTheRecordsValues() async throws {
        let (app, views) = try app()
        defer { views.remove() }
        app.post("/comment") { request in
            try request.refuse(field: "comment", "Say something.", orRender: "edit", [
                "statuses": request.options("status", Self.statuses, chosen: ["tested"]),
                "tags": request.options("tags", Self.tags, chosen: ["cold"]),
            ])
        }
        // Neither the query nor another form's fields choose anything.
        let page = try await TestClient(app).post("/comment?status=archived", form: ["comment": ""])
        #expect(page.status == .unprocessableEntity)
        #expect(page.text.contains(#"<option value="tested" selected>"#) && page.text.contains(#"value="cold" checked"#))
        #expect(!page.text.contains(#"<option value="archived" selected>"#))
    }
}
