import Foundation
import Micro
import MicroTesting
import Testing
import SampleApp

/// The tool pages through the test client, signed in as the seed's demo user.
@Suite struct ToolRoutesTests {
    private func signedInClient() async throws -> TestClient {
        let client = try sampleClient()
        let response = try await client.post("/signin", form: ["username": "user", "password": "secret123"])
        #expect(response.location == "/")
        return client
    }

    private let json: HttpHeaders = ["Accept": "application/json"]

    @Test func everyToolAsksForSignInFirst() async throws {
        let client = try sampleClient()
        for path in ["/tools/date-conversion", "/tools/data-encoding", "/tools/data-encryption"] {
            let response = try await client.get(path + "?x=1")
            #expect(response.status == .found)
            #expect(response.location == "/signin")
        }
        #expect(try await client.post("/signin", form: ["username": "user", "password": "secret123"]).location == "/tools/data-encryption?x=1")
    }

    @Test func dateConversionBothWaysAndItRemembersFormatAndZone() async throws {
        let client = try await signedInClient()
        let page = try await client.get("/tools/date-conversion?millis=0&to=date&format=rfc1123&zone=Europe/Paris")
        #expect(page.status == .ok)
        #expect(page.text.contains(#"<output id="result" for="millis date input">Thu, 01 Jan 1970 00:00:00 GMT</output>"#))
        // The chosen format and zone stay for the next visit.
        let next = try await client.get("/tools/date-conversion?millis=0")
        #expect(next.text.contains("Thu, 01 Jan 1970 00:00:00 GMT"))
        #expect(next.text.contains(#"value="Europe/Paris""#))

        let back = try await client.get("/tools/date-conversion?date=1970-01-01T00:00:01Z&to=millis", headers: json)
        #expect(back.text == #"{"result":"1000"}"#)
        let seconds = try await client.get("/tools/date-conversion?millis=1000000000&unit=seconds&format=iso8601&zone=UTC", headers: json)
        #expect(seconds.text == #"{"result":"2001-09-09T01:46:40.000Z"}"#)
        let now = try await client.get("/tools/date-conversion?now=1")
        #expect(now.text.contains(#"<output id="result""#))
    }

    @Test func dateConversionErrorsAreShownNextToTheField() async throws {
        let client = try await signedInClient()
        let badZone = try await client.get("/tools/date-conversion?millis=0&zone=Mars/Base")
        #expect(badZone.status == .unprocessableEntity)
        #expect(badZone.text.contains(#"id="zone-error""#))
        #expect(badZone.text.contains("Mars/Base"))
        // The inputs keep their values.
        #expect(badZone.text.contains(#"value="Mars/Base""#))
        let outOfRange = try await client.get("/tools/date-conversion?millis=99999999999999999", headers: json)
        #expect(outOfRange.status == .unprocessableEntity)
        #expect(try outOfRange.decode([String: String].self)["field"] == "millis")
        let notANumber = try await client.get("/tools/date-conversion?millis=abc&to=date")
        #expect(notANumber.text.contains(#"id="millis-error""#))
    }

    @Test func dataEncodingOperations() async throws {
        let client = try await signedInClient()
        let page = try await client.get("/tools/data-encoding?input=foobar&op=base64-encode")
        #expect(page.text.contains(#"<output id="result" for="millis date input">Zm9vYmFy</output>"#))
        #expect(page.text.contains(">foobar</textarea>"))
        let decoded = try await client.get("/tools/data-encoding?input=Zm9vYmFy&op=base64-decode", headers: json)
        #expect(decoded.text == #"{"result":"foobar"}"#)
        let escaped = try await client.get("/tools/data-encoding?input=%3Cb%3E&op=html-escape", headers: json)
        #expect(try escaped.decode([String: String].self)["result"] == "&lt;b&gt;")
        let bad = try await client.get("/tools/data-encoding?input=zz%21&op=hex-decode")
        #expect(bad.status == .unprocessableEntity)
        #expect(bad.text.contains(#"id="input-error""#))
        let unknown = try await client.get("/tools/data-encoding?input=x&op=rot13", headers: json)
        #expect(unknown.status == .unprocessableEntity)
    }

    @Test func dataEncryptionComputesOnPostOnly() async throws {
        let client = try await signedInClient()
        let form = try await client.get("/tools/data-encryption?input=secret&op=sha256")
        #expect(form.status == .ok)
        #expect(!form.text.contains(#"<output id="result""#))
        #expect(!form.text.contains("secret</textarea>"))

        let sha = try await client.post("/tools/data-encryption", form: ["input": "abc", "op": "sha256"])
        #expect(sha.text.contains("ba7816bf8f01cfea414140de5dae2223b00361a396177a9cb410ff61f20015ad"))
        let hmac = try await client.post("/tools/data-encryption", form: ["input": "what do ya want for nothing?", "op": "hmac-sha256", "key": "Jefe"], headers: json)
        #expect(try hmac.decode([String: String].self)["result"] == "5bdcc146bf60754e6a042426089575c75a003f089d2739839dec58b964ec3843")
        let bcrypt = try await client.post("/tools/data-encryption", form: ["input": "pw", "op": "bcrypt", "cost": "4"], headers: json)
        let hash = try #require(try bcrypt.decode([String: String].self)["result"])
        #expect(Password.verify("pw", against: hash))
        let verify = try await client.post("/tools/data-encryption", form: ["input": "pw", "op": "bcrypt-verify", "hash": hash], headers: json)
        #expect(try verify.decode([String: String].self)["result"] == "Match")
        let badCost = try await client.post("/tools/data-encryption", form: ["input": "pw", "op": "bcrypt", "cost": "20"])
        #expect(badCost.status == .unprocessableEntity)
        #expect(badCost.text.contains(#"id="cost-error""#))
    }

    @Test func encryptionFormsNeedTheCsrfToken() async throws {
        let client = try await signedInClient()
        client.sendsCsrfToken = false
        #expect(try await client.post("/tools/data-encryption", form: ["input": "abc", "op": "md5"]).status == .forbidden)
    }
}
