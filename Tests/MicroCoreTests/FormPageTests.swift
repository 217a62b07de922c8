import Foundation
import MicroCore
import MicroTestSupport
import MicroTesting
import Testing

/// A form's page named once (`request.formPage`): every refusal of the route shows it again,
/// text fields get their first values, and a form sent from another page goes back there.
@Suite struct FormPageTests {
    struct Loan: Decodable, Validatable {
        var serial: String
        var borrower: String
        var kind: String

        func validate(into errors: inout FieldErrors) {
            errors.check("serial", serial, .notBlank, .length(max: 40))
            errors.check("kind", kind, .oneOf(FormPageTests.kinds))
        }
    }

    static let kinds = ["laptop", "phone"]

    static let template = """
        <h1>{{heading}}</h1>
        {{#form.failed}}<p class="summary">{{form.message}}</p>{{/form.failed}}
        <input name="serial" value="{{form.values.serial}}">{{#form.errors.serial}}<p id="serial-error">{{.}}</p>{{/form.errors.serial}}
        <input name="borrower" value="{{form.values.borrower}}">{{#form.errors.borrower}}<p id="borrower-error">{{.}}</p>{{/form.errors.borrower}}
        <input type="password" name="password" value="{{form.values.password}}">
        <select name="kind">{{#kinds}}<option value="{{value}}"{{#chosen}} selected{{/chosen}}>{{value}}</option>{{/kinds}}</select>
        """

    private func views(_ extra: [String: String] = [:]) throws -> TemporaryFolder {
        try TemporaryFolder(["new.mustache": Self.template].merging(extra) { $1 })
    }

    /// A route with three ways to refuse, the page named once.
    private func loansApp(_ views: TemporaryFolder, pagesMade: Locked<Int> = Locked(0)) -> App {
        let app = isolatedApp { $0.views = views.path }
        @Sendable func heading() -> String {
            pagesMade.withLock { $0 += 1 }
            return "New loan"
        }
        app.post("/loans") { request in
            request.formPage("new", ["heading": heading(), "kinds": request.options("kind", Self.kinds)], layout: nil)
            let loan = try request.decode(Loan.self)
            if loan.serial == "LENT-1" { try request.refuse(field: "serial", "This serial is lent out <already>.") }
            if loan.borrower != "ada" { try request.refuse(field: "borrower", "No one has this name.") }
            if loan.kind == "phone" {
                var errors = FieldErrors()
                errors.add("kind", "Phones are out.")
                throw FormError(errors, values: request.params.form)
            }
            return "lent \(loan.serial)"
        }
        return app
    }

    @Test func everyRefusalShowsThePageNamedOnceWithTheValuesAndMessages() async throws {
        let views = try views()
        defer { views.remove() }
        let pagesMade = Locked(0)
        let client = TestClient(loansApp(views, pagesMade: pagesMade))
        #expect(try await client.post("/loans", form: ["serial": "L-2", "borrower": "ada", "kind": "laptop"]).text == "lent L-2")
        #expect(pagesMade.withLock { $0 } == 0)

        let invalid = try await client.post("/loans", form: ["serial": "", "borrower": "bob", "kind": "laptop"])
        #expect(invalid.status == .unprocessableEntity)
        #expect(invalid.text.contains("<h1>New loan</h1>"))
        #expect(invalid.text.contains(#"<p id="serial-error">This field is required.</p>"#))
        #expect(invalid.text.contains(#"<input name="borrower" value="bob">"#))

        let lent = try await client.post("/loans", form: ["serial": "LENT-1", "borrower": "ada", "kind": "laptop"])
        #expect(lent.status == .unprocessableEntity)
        #expect(lent.text.contains(#"<p id="serial-error">This serial is lent out &lt;already&gt;.</p>"#))
        #expect(lent.text.contains(#"<input name="serial" value="LENT-1">"#) && lent.text.contains(#"<option value="laptop" selected>"#))

        let nobody = try await client.post("/loans", form: ["serial": "L-3", "borrower": "eve", "kind": "laptop"])
        #expect(nobody.status == .unprocessableEntity)
        #expect(nobody.text.contains(#"<p id="borrower-error">No one has this name.</p>"#))
        #expect(nobody.text.contains(#"<input name="borrower" value="eve">"#) && !nobody.text.contains("serial-error"))

        let phone = try await client.post("/loans", form: ["serial": "L-4", "borrower": "ada", "kind": "phone"])
        #expect(phone.status == .unprocessableEntity)
        #expect(phone.text.contains(#"<p class="summary">The form has invalid fields. kind: Phones are out.</p>"#))
        #expect(phone.text.contains(#"<option value="phone" selected>"#))

        let undecodable = try await client.post("/loans", form: ["serial": "L-5"])
        #expect(undecodable.status == .badRequest && undecodable.text.contains("<h1>New loan</h1>"))
        #expect(pagesMade.withLock { $0 } == 5)
    }

    @Test func aJsonClientGetsTheJsonErrorAndARouteWithoutAPageTheErrorPage() async throws {
        let views = try views()
        defer { views.remove() }
        let app = loansApp(views)
        app.post("/plain") { request in
            try request.refuse(field: "serial", "Taken.")
        }
        let client = TestClient(app)
        let asked = try await client.post("/loans", form: ["serial": "LENT-1", "borrower": "ada", "kind": "laptop"], headers: ["Accept": "application/json"])
        #expect(asked.status == .unprocessableEntity && asked.contentType == "application/json")
        #expect(asked.text.contains(#""fields":{"serial":"This serial is lent out <already>."}"#))
        let plain = try await client.post("/plain", form: ["serial": "x"])
        #expect(plain.status == .unprocessableEntity && plain.text.contains("serial: Taken."))
    }

    @Test func aPasswordIsNeverShownBack() async throws {
        let views = try views(["change.mustache": """
            <input name="name" value="{{form.values.name}}"><input type="password" name="new_password" value="{{form.values.new_password}}">
            <input name="user[password]" value="{{form.values.user.password}}"><input name="api_token" value="{{form.values.api_token}}">
            """])
        defer { views.remove() }
        let client = TestClient(loansApp(views))
        let page = try await client.post("/loans", form: ["serial": "LENT-1", "borrower": "ada", "kind": "laptop", "password": "hunter2"])
        #expect(page.status == .unprocessableEntity)
        #expect(page.text.contains(#"<input type="password" name="password" value="">"#) && !page.text.contains("hunter2"))
        // Nor a password given as a first value's neighbour, nested, or a token.
        let app = isolatedApp { $0.views = views.path }
        app.post("/change") { request in
            request.formPage("change", layout: nil)
            try request.refuse(field: "name", "Taken.")
        }
        let change = try await TestClient(app).post(
            "/change", form: ["name": "ada", "new_password": "s3cret!", "user[password]": "pw2", "api_token": "tok_123"])
        #expect(change.text.contains(#"<input name="name" value="ada">"#))
        for secret in ["s3cret!", "pw2", "tok_123"] { #expect(!change.text.contains(secret)) }
    }

    @Test func hostileInputIsShownEscapedAndNeverFails() async throws {
        let views = try views()
        defer { views.remove() }
        let client = TestClient(loansApp(views))
        let bidi = "\u{202E}evil\u{202C}\u{2066}x\u{2069}"
        let marks = "a\u{301}\u{300}\u{34F}" + String(repeating: "\u{301}", count: 500)
        for value in HostileText.all.map(\.text) + [bidi, marks, String(repeating: "ü", count: 10_000)] {
            let page = try await client.post("/loans", form: ["serial": "LENT-1", "borrower": value, "kind": value])
            #expect(page.status == .unprocessableEntity, "\(value.prefix(20))")
            #expect(!page.text.contains("<meta"))
        }
        // Bytes that are not UTF-8: read with replacement characters, still the page.
        var headers = HttpHeaders()
        headers.add(name: "Content-Type", value: "application/x-www-form-urlencoded")
        let raw = try await client.request(.POST, "/loans", headers: headers, body: Array("serial=LENT-1&kind=laptop&borrower=%FF%FE%C0".utf8))
        #expect(raw.status == .unprocessableEntity || raw.status == .badRequest)
        #expect(raw.status != .internalServerError)
    }

    @Test func aTextFieldShowsItsFirstValueThenWhatWasSent() async throws {
        let views = try views(["edit.mustache": """
            <input name="serial" value="{{form.values.serial}}"><input name="borrower" value="{{form.values.borrower}}">
            <textarea name="note">{{form.values.note}}</textarea><input type="checkbox" name="spare"{{#form.values.spare}} checked{{/form.values.spare}}>
            {{#form.errors.serial}}<p id="serial-error">{{.}}</p>{{/form.errors.serial}}
            """])
        defer { views.remove() }
        let app = isolatedApp { $0.views = views.path }
        let note: String? = nil
        @Sendable func first() -> [String: Any] { ["serial": "L-7", "borrower": "Zoë <Q>", "note": note as Any, "spare": true] }
        app.get("/loans/7/edit") { request in try request.render("edit", formValues: first(), layout: nil) }
        app.post("/loans/7") { request in
            request.formPage("edit", formValues: first(), layout: nil)
            let serial = request.params["serial"] ?? ""
            if serial.isEmpty || serial == "LENT-1" { try request.refuse(field: "serial", "Pick another serial.") }
            return "saved"
        }
        let client = TestClient(app)
        let edit = try await client.get("/loans/7/edit")
        #expect(edit.status == .ok)
        #expect(edit.text.contains(#"<input name="serial" value="L-7"><input name="borrower" value="Zoë &lt;Q&gt;">"#))
        // A nil first value is no value, not the word "nil".
        #expect(edit.text.contains("<textarea name=\"note\"></textarea>") && edit.text.contains(#"name="spare" checked>"#))
        #expect(!edit.text.contains("serial-error"))

        // Sent: what was typed wins, an empty field stays empty; a field not sent keeps its first value.
        let refused = try await client.post("/loans/7", form: ["serial": "LENT-1", "note": "", "spare": ""])
        #expect(refused.status == .unprocessableEntity)
        #expect(refused.text.contains(#"<input name="serial" value="LENT-1"><input name="borrower" value="Zoë &lt;Q&gt;">"#))
        #expect(refused.text.contains("<textarea name=\"note\"></textarea>") && refused.text.contains(#"name="spare">"#))
        #expect(refused.text.contains(#"<p id="serial-error">Pick another serial.</p>"#))
        let cleared = try await client.post("/loans/7", form: ["serial": "", "borrower": ""])
        #expect(cleared.text.contains(#"<input name="serial" value=""><input name="borrower" value="">"#))
    }

    @Test func aFormSentFromAnotherPageGoesBackThereWithItsMessagesOnce() async throws {
        let views = try views(["home.mustache": """
            <h1>Home</h1>{{#form.failed}}<p class="summary">{{form.message}}</p>{{/form.failed}}
            <input name="serial" value="{{form.values.serial}}">{{#form.errors.serial}}<p id="serial-error">{{.}}</p>{{/form.errors.serial}}
            <input name="borrower" value="{{form.values.borrower}}"><input type="password" name="password" value="{{form.values.password}}">
            <select name="kind">{{#kinds}}<option value="{{value}}"{{#chosen}} selected{{/chosen}}>{{value}}</option>{{/kinds}}</select>
            """])
        defer { views.remove() }
        let app = isolatedApp { $0.views = views.path }
        app.get("/") { request in
            try request.render("home", ["kinds": request.options("kind", Self.kinds, chosen: ["laptop"])], layout: nil)
        }
        app.post("/loans") { request in
            request.formPage(at: "/")
            let loan = try request.decode(Loan.self)
            if loan.serial == "LENT-1" { try request.refuse(field: "serial", "This serial is lent out already.") }
            return "lent"
        }
        let client = TestClient(app)
        let refused = try await client.post("/loans", form: ["serial": "LENT-1", "borrower": "Zoë", "kind": "phone", "password": "hunter2"])
        #expect(refused.status == .seeOther && refused.location == "/")
        let home = try await client.get("/")
        #expect(home.status == .ok)
        #expect(home.text.contains(#"<p id="serial-error">This serial is lent out already.</p>"#))
        #expect(home.text.contains(#"<input name="serial" value="LENT-1">"#) && home.text.contains(#"<input name="borrower" value="Zoë">"#))
        #expect(home.text.contains(#"<option value="phone" selected>"#) && !home.text.contains(#"<option value="laptop" selected>"#))
        #expect(!home.text.contains("hunter2") && !(client.cookies.values.map(\.value).joined().contains("hunter2")))
        // Once: the next visit is a first visit again.
        let again = try await client.get("/")
        #expect(!again.text.contains("serial-error") && again.text.contains(#"<input name="serial" value="">"#))
        #expect(again.text.contains(#"<option value="laptop" selected>"#))
        // What was typed crosses the redirect as text, escaped on the page like any value.
        for hostile in HostileText.all.map(\.text) + ["\u{202E}1-TNEL\u{202C}", "L\u{301}\u{34F}\u{300}"] {
            #expect(try await client.post("/loans", form: ["serial": "LENT-1", "borrower": hostile, "kind": "laptop"]).status == .seeOther)
            let shown = try await client.get("/")
            #expect(shown.status == .ok && !shown.text.contains("<meta"))
            #expect(shown.text.contains(#"<input name="borrower" value="\#(HostileText.referenceEscape(hostile))">"#) || hostile.utf8.count > 256)
        }
        // A script still gets the JSON error, not a redirect.
        let json = try await client.post("/loans", form: ["serial": "LENT-1", "borrower": "x", "kind": "phone"], headers: ["Accept": "application/json"])
        #expect(json.status == .unprocessableEntity && json.contentType == "application/json")
    }

    @Test func whatARedirectCarriesIsBounded() async throws {
        let views = try views(["home.mustache": """
            <h1>Home</h1><input name="serial" value="{{form.values.serial}}"><textarea name="borrower">{{form.values.borrower}}</textarea>
            {{#form.errors.serial}}<p id="serial-error">{{.}}</p>{{/form.errors.serial}}{{#form.errors.f3}}<p id="f3-error">{{.}}</p>{{/form.errors.f3}}
            """])
        defer { views.remove() }
        let app = isolatedApp { $0.views = views.path }
        app.get("/") { request in try request.render("home", layout: nil) }
        app.post("/loans") { request in
            request.formPage(at: "/")
            var errors = FieldErrors()
            errors.add("serial", "Taken " + (request.params["serial"] ?? ""))
            for index in 0..<40 { errors.add("f\(index)", String(repeating: "é", count: 400)) }
            try request.refuse(errors)
        }
        let client = TestClient(app)
        let long = String(repeating: "b\u{301}\u{202E}", count: 2_000)
        var form: [(String, String)] = [("serial", "LENT-1"), ("borrower", long)]
        for index in 0..<200 { form.append(("extra\(index)", String(repeating: "x", count: 100))) }
        var headers = HttpHeaders()
        headers.add(name: "Content-Type", value: "application/x-www-form-urlencoded")
        let body = form.map { "\($0.0)=\($0.1.addingPercentEncoding(withAllowedCharacters: .alphanumerics)!)" }.joined(separator: "&")
        let refused = try await client.request(.POST, "/loans", headers: headers, body: Array(body.utf8))
        #expect(refused.status == .seeOther)
        let cookie = try #require(client.cookies.values.first)
        #expect(cookie.value.utf8.count < 3_000)
        let home = try await client.get("/")
        #expect(home.status == .ok)
        #expect(home.text.contains(#"<input name="serial" value="LENT-1">"#))
        #expect(home.text.contains(#"<p id="serial-error">Taken LENT-1</p>"#))
        // The long text is left out whole, never cut.
        #expect(home.text.contains(#"<textarea name="borrower"></textarea>"#))

        // Text that grows when it is stored (quotes, slashes, control characters) is counted as stored.
        let grown = (0..<60).map { ("g\($0)", String(repeating: "\"/\u{1}\\", count: 60)) }
        let grownBody = ([("serial", String(repeating: "\u{2}", count: 250))] + grown)
            .map { "\($0.0)=\($0.1.addingPercentEncoding(withAllowedCharacters: .alphanumerics)!)" }.joined(separator: "&")
        let again = try await client.request(.POST, "/loans", headers: headers, body: Array(grownBody.utf8))
        #expect(again.status == .seeOther)
        #expect(try #require(client.cookies.values.first).value.utf8.count < 3_000)
        #expect(try await client.get("/").status == .ok)
    }

    @Test func aGroupNamesThePageOnceForItsRoutes() async throws {
        let views = try views()
        defer { views.remove() }
        let app = isolatedApp { $0.views = views.path }
        app.group("/loans") { loans in
            loans.formPage("new", layout: nil) { request in ["heading": "Loan \(request.params["serial"] ?? "")", "kinds": [FormOption]()] }
            loans.post("/:serial/extend") { request in try request.refuse(field: "serial", "Cannot extend.") }
            loans.post("/:serial/transfer") { request in
                request.formPage(at: "/")
                try request.refuse(field: "borrower", "No one has this name.")
            }
        }
        let client = TestClient(app)
        let extend = try await client.post("/loans/L-1/extend", form: ["serial": "L-1"])
        #expect(extend.status == .unprocessableEntity && extend.text.contains("<h1>Loan L-1</h1>"))
        #expect(extend.text.contains(#"<p id="serial-error">Cannot extend.</p>"#))
        #expect(try await client.post("/loans/L-1/transfer", form: ["borrower": "x"]).location == "/")
    }

    @Test func aMisspeltFormNameFailsLoudly() async throws {
        let views = try views([
            "typo.mustache": "<input name=\"serial\" value=\"{{form.valeus.serial}}\">",
            "other.mustache": "<input name=\"serial\" value=\"{{from.values.serial}}\">",
            "fine.mustache": "<input name=\"serial\" value=\"{{form.values.serial}}\">{{form.message}}",
        ])
        defer { views.remove() }
        let app = isolatedApp { $0.views = views.path }
        app.get("/:name") { request in try request.render(request.params["name"]!, formValues: ["serial": "L-1"], layout: nil) }
        app.post("/:name") { request in
            request.formPage(request.params["name"]!, layout: nil)
            try request.refuse(field: "serial", "Taken.")
        }
        let client = TestClient(app)
        for name in ["typo", "other"] {
            let first = try await client.get("/\(name)")
            #expect(first.status == .internalServerError)
            #expect(try await client.post("/\(name)", form: ["serial": "x"]).status == .internalServerError)
        }
        #expect(try await client.get("/other").text.contains("{{from.values.serial}} names a value this page was not given"))
        let typo = try await client.get("/typo").text
        #expect(typo.contains("{{form.valeus.serial}} names no part of the form: it has errors, failed, message, messages, values"))
        let fine = try await client.get("/fine")
        #expect(fine.status == .ok && fine.text.contains(#"value="L-1""#))
        #expect(try await client.post("/fine", form: ["serial": "x"]).status == .unprocessableEntity)
    }
}
