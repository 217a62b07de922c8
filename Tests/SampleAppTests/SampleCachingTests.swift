import Foundation
import Micro
import MicroTesting
import Testing
import SampleApp

/// No cache keeps the sample app's session pages or tool results; its static files keep their
/// validators. (Tests/Httplint/run.sh checks the same answers with httplint over a socket.)
@Suite struct SampleCachingTests {
    private let json: HttpHeaders = ["Accept": "application/json"]

    private func signIn(_ client: TestClient) async throws {
        let response = try await client.post("/signin", form: ["username": "user", "password": "secret123"])
        #expect(response.status == .seeOther)
        #expect(response.location != "/signin")
        #expect(response.headers["Cache-Control"] == ["no-store"])
    }

    @Test func pagesSignedOutAndSignedIn() async throws {
        let client = try sampleClient()
        let home = try await client.get("/")
        #expect(home.headers["Cache-Control"] == ["private, max-age=0, must-revalidate"])
        #expect(home.headers["Vary"] == ["Cookie"])
        let signInPage = try await client.get("/signin")
        #expect(signInPage.headers.first(name: "Set-Cookie") != nil)
        #expect(signInPage.headers["Cache-Control"] == ["no-store"])
        let protected = try await client.get("/protected")
        #expect(protected.status == .found)
        #expect(protected.headers["Cache-Control"] == ["no-store"])

        try await signIn(client)
        for path in ["/", "/signin", "/protected", "/tools/date-conversion", "/tools/data-encoding", "/tools/data-encryption", "/signout"] {
            let page = try await client.get(path)
            #expect(page.status == .ok, "\(path)")
            #expect(page.headers["Cache-Control"] == ["no-store"], "\(path)")
        }
        let css = try await client.get("/css/app.css")
        #expect(css.headers["Cache-Control"] == ["no-cache"])
        #expect(css.headers.first(name: "ETag") != nil)
        #expect(css.headers.first(name: "Last-Modified") != nil)
    }

    @Test func jsonToolResultsAreNotStoredEvenWithMicrosRuleTurnedOff() async throws {
        // The sample app says no-store itself; Micro's rule for signed-in sessions would too.
        let client = TestClient(try sampleApp { $0.securityHeaders.signedInCacheControl = nil })
        try await signIn(client)
        let answers = [
            try await client.get("/tools/data-encoding?op=base64-encode&input=foobar", headers: json),
            try await client.get("/tools/data-encoding?op=base64-decode&input=%21%21", headers: json),
            try await client.get("/tools/date-conversion?millis=0&zone=UTC", headers: json),
            try await client.get("/tools/date-conversion", headers: json),
            try await client.post("/tools/data-encryption", form: ["op": "sha256", "input": "foobar"], headers: json),
        ]
        #expect(answers.map(\.status.code) == [200, 422, 200, 400, 200])
        for answer in answers {
            #expect(answer.contentType == "application/json")
            #expect(answer.headers["Cache-Control"] == ["no-store"], "\(answer.text)")
        }
        // The pages themselves follow Micro's rules (here: private, as the rule was turned off,
        // once the welcome message has left the session).
        #expect(try await client.get("/tools/data-encoding").headers["Cache-Control"] == ["no-store"])
        #expect(try await client.get("/tools/data-encoding").headers["Cache-Control"] == ["private, max-age=0, must-revalidate"])
    }
}
