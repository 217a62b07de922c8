import Foundation
import MicroCore
import MicroTestSupport
import MicroTesting
import Testing

/// The article "Routes, requests and answers", section "A form's page, named once": its routes
/// and template as written there.
@Suite struct FormPageArticleTests {
    struct NewLoan: Decodable, Validatable {
        var serial: String
        var borrower: String
        var days: Int

        func validate(into errors: inout FieldErrors) {
            errors.check("serial", serial, .notBlank, .length(max: 40))
            errors.check("days", days, .range(1...90))
        }
    }

    /// What the article's routes ask of their store.
    actor Loans {
        private var lent: Set<String> = ["L-1"]
        private let people: Set<String> = ["ada", "grace"]

        func isLent(_ serial: String) -> Bool { lent.contains(serial) }
        func knows(_ borrower: String) -> Bool { people.contains(borrower) }
        func add(_ loan: NewLoan) { lent.insert(loan.serial) }
        func giveBack(_ serial: String) { lent.remove(serial) }
    }

    static let newLoan = """
        <form method="post" action="{{basePath}}/loans">
          {{{csrfField}}}
          <input name="serial" value="{{form.values.serial}}">
          {{#form.errors.serial}}<p class="field-error">{{.}}</p>{{/form.errors.serial}}
          <input name="borrower" value="{{form.values.borrower}}">
          {{#form.errors.borrower}}<p class="field-error">{{.}}</p>{{/form.errors.borrower}}
          <input name="days" value="{{form.values.days}}">
          {{#form.errors.days}}<p class="field-error">{{.}}</p>{{/form.errors.days}}
          <button>Lend</button>
        </form>
        """

    static let home = """
        <form method="post" action="{{basePath}}/returns">{{{csrfField}}}
        <input name="serial" value="{{form.values.serial}}">{{#form.errors.serial}}<p class="field-error">{{.}}</p>{{/form.errors.serial}}</form>
        """

    @Test func theLoanFormIsShownAgainAtEachRefusalAndTheReturnFormGoesHome() async throws {
        let views = try TemporaryFolder(["loans/new.mustache": Self.newLoan, "home.mustache": Self.home])
        defer { views.remove() }
        let app = isolatedApp { $0.views = views.path }
        routes(app, Loans())
        let client = TestClient(app)

        let first = try await client.get("/loans/new")
        #expect(first.text.contains(#"<input name="days" value="14">"#) && first.text.contains(#"<input name="serial" value="">"#))
        let badDays = try await client.post("/loans", form: ["serial": "L-2", "borrower": "ada", "days": "two"])
        #expect(badDays.status == .badRequest)
        #expect(badDays.text.contains(#"<input name="days" value="two">"#) && badDays.text.contains("Not a whole number."))
        let lent = try await client.post("/loans", form: ["serial": "L-1", "borrower": "ada", "days": "30"])
        #expect(lent.status == .unprocessableEntity)
        #expect(lent.text.contains(#"<p class="field-error">This serial is lent out already.</p>"#))
        #expect(lent.text.contains(#"<input name="days" value="30">"#))
        let nobody = try await client.post("/loans", form: ["serial": "L-2", "borrower": "<eve>", "days": "7"])
        #expect(nobody.status == .unprocessableEntity)
        #expect(nobody.text.contains(#"<input name="borrower" value="&lt;eve&gt;">"#) && nobody.text.contains("No one here has this name."))
        #expect(try await client.post("/loans", form: ["serial": "L-2", "borrower": "ada", "days": "7"]).status == .seeOther)

        let notLent = try await client.post("/returns", form: ["serial": "L-9"])
        #expect(notLent.status == .seeOther && notLent.location == "/")
        let home = try await client.get("/")
        #expect(home.text.contains(#"<input name="serial" value="L-9"><p class="field-error">This serial is not lent out.</p>"#))
        #expect(try await client.post("/returns", form: ["serial": "L-2"]).location == "/")
        #expect(!(try await client.get("/").text.contains("field-error")))
    }

    /// The article's code.
    private func routes(_ app: App, _ loans: Loans) {
        app.get("/") { request in try request.render("home") }

        app.get("/loans/new") { request in
            try request.render("loans/new", ["title": "New loan"], formValues: ["days": 14])
        }
        app.post("/loans") { request in
            request.formPage("loans/new", ["title": "New loan"])      // each refusal below shows it again
            let loan = try request.decode(NewLoan.self)
            if await loans.isLent(loan.serial) { try request.refuse(field: "serial", "This serial is lent out already.") }
            if await !loans.knows(loan.borrower) { try request.refuse(field: "borrower", "No one here has this name.") }
            await loans.add(loan)
            try request.redirect(to: "/loans/new")
        }

        // A form on the home page, sent to a route of its own: refused, it goes back to the home page.
        app.post("/returns") { request in
            request.formPage(at: "/")
            let serial = request.params["serial"] ?? ""
            if await !loans.isLent(serial) { try request.refuse(field: "serial", "This serial is not lent out.") }
            await loans.giveBack(serial)
            try request.redirect(to: "/")
        }
    }
}
