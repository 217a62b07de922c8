import Foundation
import Micro
import MicroTesting
import Testing

/// What the tool's admins get from Micro's accounts: a second factor they must use, the users
/// page, and the record of every note added or deleted.
@Suite(.timeLimit(.minutes(3))) struct NotesAccountsTests {
    @Test func anAdminMustTurnOnASecondFactorAndThenSignsInWithACode() async throws {
        try await withNotesTool { app, _ in
            let lead = TestClient(app)
            try await lead.signIn("lead")
            // Until the second factor is on, the tool sends the admin to the page that turns it on.
            let sent = try await lead.get("/notes")
            #expect(sent.status == .found && sent.location?.hasSuffix("/account/two-factor") == true, "\(sent.status) \(sent.location ?? "")")
            let secret = try await lead.turnOnTwoFactor(password: passwords["lead"]!) { code($0) }.secret
            #expect(try await lead.get("/notes").status == .ok)
            #expect(try await lead.get("/admin/users").status == .ok)

            // The next sign-in asks for a code; a password alone is not enough.
            let again = TestClient(app)
            #expect(try await again.signIn("lead", passwords["lead"]!).location?.hasSuffix("/signin/two-factor") == true)
            #expect(try await again.get("/notes").location?.hasSuffix("/signin") == true)
            let withCode = TestClient(app)
            try await withCode.signIn("lead", secret: secret)
            #expect(try await withCode.get("/notes").status == .ok)
            // An engineer has no users page.
            let engineer = TestClient(app)
            try await engineer.signIn("oncall")
            #expect(try await engineer.get("/admin/users").status == .forbidden)
        }
    }

    @Test func everyNoteAddedOrDeletedIsInTheAppsEvents() async throws {
        try await withNotesTool { app, _ in
            let engineer = TestClient(app)
            try await engineer.signIn("oncall")
            _ = try await engineer.post("/notes", form: ["title": "Pager <storm>", "severity": "1"])
            let lead = TestClient(app)
            _ = try await lead.signInAsLead()
            _ = try await lead.post("/notes/1/delete", form: [:])

            struct Event: Decodable { let user: String, kind: String, subject: String, detail: String }
            let events = try await lead.get("/admin/audit/app", headers: ["Accept": "application/json"]).decode([Event].self)
            #expect(events.map(\.kind) == ["note_deleted", "note_added"])
            #expect(events.allSatisfy { $0.subject == "note 1" })
            #expect(events.last?.user == "oncall" && events.last?.detail == "SEV1 Pager <storm>")
            #expect(events.first?.user == "lead")
            let page = try await lead.get("/admin/audit/app?kind=note_added").text
            #expect(page.contains("Pager &lt;storm&gt;") && !page.contains("Pager <storm>"))
            // The engineer's own security activity holds no app event.
            #expect(!(try await engineer.get("/account/activity").text.contains("note_added")))
        }
    }

    @Test func theListComesAPageAtATimeAndKeepsItsSeverityFilter() async throws {
        try await withNotesTool { app, _ in
            let client = TestClient(app)
            try await client.signIn("oncall")
            for number in 1...45 {
                _ = try await client.post("/notes", form: ["title": "note \(number)", "severity": number % 3 == 0 ? "2" : "4"])
            }
            let first = try await client.get("/notes").text
            #expect(first.components(separatedBy: "<li>SEV").count - 1 == 20)
            #expect(first.contains(#"<a rel="next" href="/notes?after=26">Older notes</a>"#) && !first.contains(#"rel="prev""#))
            let last = try await client.get("/notes?after=6").text
            #expect(last.contains(">note 5<") && last.contains(">note 1<") && last.contains(#"rel="prev" href="/notes?before=5""#))
            // Fifteen notes of SEV2: one page, the filter's option chosen, the others not.
            let filtered = try await client.get("/notes?severity=2").text
            #expect(filtered.components(separatedBy: "<li>SEV2").count - 1 == 15 && !filtered.contains("<li>SEV4"))
            #expect(filtered.contains(#"<option value="2" selected>SEV2: degraded</option>"#) && !filtered.contains(#"rel="next""#))
            let page = try await client.get("/notes?severity=4").text
            #expect(page.contains(#"href="/notes?after="#) && page.contains("&amp;severity=4"))
            #expect(try await client.get("/notes?page=x&after=y").status == .badRequest)
        }
    }
}
