import Foundation
import MicroCore
import MicroTestSupport
import MicroTesting
import Testing

/// ``Validatable`` types through `request.decode`, and the rules of ``FieldRule``.
@Suite struct FormValidationTests {
    struct NewNote: Codable, Validatable {
        var title: String
        var body: String
        var severity: Int
        var pager: Bool
        var email: String?
        var slug: String?
        var tags: [String]

        func validate(into errors: inout FieldErrors) {
            errors.check("title", title, .notBlank, .length(3...20))
            errors.check("body", body, .length(max: 10), .matches(#/[^<>]*/#, "No angle brackets."))
            errors.check("severity", severity, .range(1...5))
            errors.check("email", email, .email)
            errors.check("slug", slug, .matches(#/[a-z0-9-]+/#, "Lowercase letters, digits and dashes."), .length(min: 2))
            errors.check("tags", tags, .count(0...2))
            if pager && severity > 2 { errors.add("pager", "Only severities 1 and 2 page.") }
        }
    }

    private func noteApp() -> App {
        let app = isolatedApp()
        app.post("/notes") { request in try request.decode(NewNote.self).title }
        return app
    }

    @Test func aValidNotePasses() async throws {
        let response = try await TestClient(noteApp()).post("/notes", form: [
            "title": "Disk full", "body": "db-3", "severity": "1", "pager": "on", "email": "", "slug": "db-3", "tags": "disk",
        ])
        #expect(response.status == .ok)
        #expect(response.text == "Disk full")
    }

    @Test func eachFieldGetsItsMessagesAnd422() async throws {
        let response = try await TestClient(noteApp()).post("/notes", form: [
            "title": "  ", "body": "<b>far too long</b>", "severity": "9", "pager": "on", "email": "nobody", "slug": "A",
            "tags": "a", "tags": "b", "tags": "c",
        ], headers: ["Accept": "application/json"])
        #expect(response.status == .unprocessableEntity)
        let answer = try response.decode(ErrorAnswer.self)
        #expect(answer.fields == [
            // A blank field gets one message: the rest of its rules are not checked.
            "title": "This field is required.",
            // Several rules failed, several messages.
            "body": "Must be at most 10 characters. No angle brackets.",
            "severity": "Must be from 1 to 5.",
            "pager": "Only severities 1 and 2 page.",
            "email": "Not a valid e-mail address.",
            "slug": "Lowercase letters, digits and dashes. Must be at least 2 characters.",
            "tags": "Choose 0 to 2.",
        ])
        #expect(answer.error.hasPrefix("The form has invalid fields. title: This field is required. body: "))
    }

    @Test func aValueThatDoesNotDecodeIs400BeforeAnyCheck() async throws {
        let response = try await TestClient(noteApp()).post("/notes", form: ["title": "", "body": "", "severity": "high"])
        #expect(response.status == .badRequest)
        #expect(response.text.contains("severity: Not a whole number."))
        #expect(!response.text.contains("title:"))
    }

    @Test func aJsonBodyIsCheckedToo() async throws {
        struct Json: Codable { var title: String; var body: String; var severity: Int; var pager: Bool; var tags: [String] }
        let response = try await TestClient(noteApp()).post("/notes", json: Json(title: "ok!", body: "", severity: 0, pager: false, tags: []))
        #expect(response.status == .unprocessableEntity)
        #expect(response.contentType == "application/json")
        #expect(try response.decode(ErrorAnswer.self).fields == ["severity": "Must be from 1 to 5."])
    }

    @Test func lengthsCountScalarsSoMarksCannotHideLength() {
        var errors = FieldErrors()
        // One letter to a reader, 41 scalars.
        let zalgo = "e" + String(repeating: "\u{301}", count: 40)
        #expect(zalgo.count == 1)
        errors.check("name", zalgo, .length(max: 20))
        errors.check("short", "e\u{301}", .length(min: 2))
        errors.check("flag", "\u{1F1F3}\u{1F1F4}", .length(1...2))
        #expect(errors.fields == ["name"])
        #expect(errors["name"] == ["Must be at most 20 characters."])
    }

    @Test func rulesAndTheirMessages() {
        var errors = FieldErrors()
        errors.check("a", "", .notBlank, .length(min: 5))
        errors.check("b", "\t\n ", .notBlank)
        errors.check("c", 0, .range(1...))
        errors.check("d", 7.5, .range(...7.0))
        errors.check("e", [1, 2], .count(3...3))
        errors.check("f", "a@b", .email)
        errors.check("g", "a b@c.d", .email)
        errors.check("h", "a@b..c", .email)
        errors.check("i", Optional<String>.none, .notBlank)
        errors.check("j", "ok@example.com", .email, .length(max: 100))
        errors.check("k", "x", FieldRule { $0 == "y" ? nil : "Must be y." })
        errors.add("k", "Must be y.")
        errors.add("k", "Still not y.")
        #expect(errors.all.map(\.field) == ["a", "b", "c", "d", "e", "f", "g", "h", "k"])
        #expect(errors["a"] == ["This field is required."])
        #expect(errors["c"] == ["Must be at least 1."])
        #expect(errors["d"] == ["Must be at most 7.0."])
        #expect(errors["e"] == ["Choose exactly 3."])
        #expect(errors["k"] == ["Must be y.", "Still not y."])
        #expect(errors.message(for: "k") == "Must be y. Still not y.")
        #expect(errors.message(for: "j") == nil)
    }

    @Test func aCheckNeedingALookupThrowsItsOwnFormError() async throws {
        struct Title: Codable { var title: String }
        let app = isolatedApp()
        app.post("/notes") { request in
            let note = try request.decode(Title.self)
            var errors = FieldErrors()
            if note.title == "taken" { errors.add("title", "A note has this title already.") }
            guard errors.isEmpty else { throw FormError(errors, values: request.params.form) }
            return note.title
        }
        let client = TestClient(app)
        let taken = try await client.post("/notes", form: ["title": "taken"], headers: ["Accept": "application/json"])
        #expect(taken.status == .unprocessableEntity)
        #expect(try taken.decode(ErrorAnswer.self).fields == ["title": "A note has this title already."])
        #expect(try await client.post("/notes", form: ["title": "free"]).text == "free")
    }
}
