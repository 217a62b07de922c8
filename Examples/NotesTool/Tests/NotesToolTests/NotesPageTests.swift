import Micro
import MicroTesting
import Testing

/// The pages people use, through a browser's eyes.
@Suite(.timeLimit(.minutes(3))) struct NotesPageTests {
    @Test func healthzAnswersWithoutSignIn() async throws {
        try await withNotesTool { app, _ in
            let answer = try await TestClient(app).get("/healthz")
            #expect(answer.status == .ok && answer.text == "ok")
            #expect(answer.headers["Set-Cookie"].isEmpty)
        }
    }

    @Test func notesAskForSignInAndComeBackAfterIt() async throws {
        try await withNotesTool { app, _ in
            let client = TestClient(app)
            #expect(try await client.get("/notes").location == "/signin")
            #expect(try await client.get("/notes/new").location == "/signin")
            let signedIn = try await client.post("/signin", form: ["username": "oncall", "password": "oncall-secret"])
            #expect(signedIn.location == "/notes/new")
        }
    }

    @Test func aSignedInEngineerWritesANote() async throws {
        try await withNotesTool { app, _ in
            let client = TestClient(app)
            try await client.signIn("oncall")
            #expect(try await client.get("/notes").text.contains("No notes yet."))
            let saved = try await client.post("/notes", form: ["title": "Disk full on db-2", "severity": "2", "body": "Rotated the logs."])
            #expect(saved.status == .seeOther && saved.location == "/notes/1")
            let page = try await client.get("/notes/1")
            #expect(page.text.contains("<h1>Disk full on db-2</h1>"))
            #expect(page.text.contains("SEV2, by oncall"))
            #expect(page.text.contains("<pre>Rotated the logs.</pre>"))
            #expect(page.text.contains("Note saved."))
            #expect(try await client.get("/notes").text.contains(#"SEV2 <a href="/notes/1">Disk full on db-2</a> by oncall"#))
            #expect(try await client.get("/notes/2").status == .notFound)
        }
    }

    @Test func anInvalidFormComesBackWithItsMessagesAndValues() async throws {
        try await withNotesTool { app, _ in
            let client = TestClient(app)
            try await client.signIn("oncall")
            let title = String(repeating: "\"<", count: 61)
            let page = try await client.post("/notes", form: ["title": title, "severity": "9", "body": "</textarea><script>alert(1)</script>"])
            #expect(page.status == .unprocessableEntity)
            #expect(page.text.contains("Must be at most 120 characters."))
            #expect(page.text.contains("Must be from 1 to 5."))
            #expect(page.text.contains(#"value=""# + String(repeating: "&quot;&lt;", count: 61) + #"""#))
            // 9 was never offered: no option is marked.
            #expect(page.text.contains(#"<option value="1">SEV1: outage</option>"#) && !page.text.contains("selected"))
            #expect(page.text.contains("&lt;/textarea&gt;&lt;script&gt;alert(1)&lt;/script&gt;</textarea>"))
            #expect(!page.text.contains("<script>"))

            let blank = try await client.post("/notes", form: ["title": "  ", "severity": "high"])
            #expect(blank.status == .badRequest)
            #expect(blank.text.contains("Not a whole number."))
            #expect(try await client.get("/notes").text.contains("No notes yet."))
        }
    }

    @Test func onlyAnAdminDeletesANote() async throws {
        try await withNotesTool { app, _ in
            let engineer = TestClient(app)
            try await engineer.signIn("oncall")
            _ = try await engineer.post("/notes", form: ["title": "Pager storm", "severity": "1"])
            #expect(!(try await engineer.get("/notes/1").text.contains("Delete")))
            let refused = try await engineer.post("/notes/1/delete", form: [:])
            #expect(refused.status == .forbidden)
            #expect(try await engineer.get("/notes/1").status == .ok)

            let lead = TestClient(app)
            _ = try await lead.signInAsLead()
            #expect(try await lead.get("/notes/1").text.contains(#"action="/notes/1/delete""#))
            let deleted = try await lead.post("/notes/1/delete", form: [:])
            #expect(deleted.status == .seeOther && deleted.location == "/notes")
            #expect(try await lead.get("/notes").text.contains("Note deleted."))
            #expect(try await lead.get("/notes/1").status == .notFound)
            #expect(try await lead.post("/notes/1/delete", form: [:]).status == .notFound)
        }
    }

    @Test func hostileInputIsKeptAsTextAndEscapedByBytes() async throws {
        try await withNotesTool { app, _ in
            let client = TestClient(app)
            try await client.signIn("oncall")
            // A quote and a less-than sign each under a combining mark: one letter to a reader, and
            // markup to a browser when escaping goes by letter.
            _ = try await client.post("/notes", form: ["title": "\"\u{301}<\u{338}img src=x onerror=alert(1)>", "severity": "3"])
            let page = try await client.get("/notes/1")
            #expect(page.text.contains("<h1>&quot;\u{301}&lt;\u{338}img src=x onerror=alert(1)&gt;</h1>"))
            #expect(!page.text.contains("<\u{338}img"))

            // One letter with 200 marks is 201 characters to the length check.
            let long = try await client.post("/notes", form: ["title": "a" + String(repeating: "\u{301}", count: 200), "severity": "3"])
            #expect(long.status == .unprocessableEntity && long.text.contains("Must be at most 120 characters."))

            // Escapes of bytes that are not UTF-8 are refused; such bytes sent raw read as U+FFFD.
            let form: HttpHeaders = ["Content-Type": "application/x-www-form-urlencoded"]
            let escaped = try await client.request(.POST, "/notes", headers: form, body: Array("title=%FF%FE%3Cb%3E&severity=4".utf8))
            #expect(escaped.status == .badRequest && escaped.text.contains("Malformed percent-encoding"))
            let raw = try await client.request(.POST, "/notes", headers: form, body: Array("title=".utf8) + [0xFF, 0xFE] + Array("%3Cb%3E&severity=4".utf8))
            #expect(raw.location == "/notes/2")
            #expect(try await client.get("/notes/2").text.contains("<h1>\u{FFFD}\u{FFFD}&lt;b&gt;</h1>"))
        }
    }
}
