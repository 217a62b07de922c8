import MicroCore
import MicroTestSupport
import MicroTesting
import Testing

/// The limits on a form's fields (``Settings/formFieldLimit``) and on the memory its fields
/// take (``Settings/formMemoryLimit``), for urlencoded and multipart bodies and query strings.
@Suite struct FormLimitsTests {
    private static let urlencoded: HttpHeaders = ["Content-Type": "application/x-www-form-urlencoded"]
    private static let boundary = "----MicroFormLimits"
    private static let multipart: HttpHeaders = ["Content-Type": "multipart/form-data; boundary=\(boundary)"]

    /// An app whose `POST /form` and `GET /query` answer the count of fields they got.
    private func countingApp(_ configure: (inout Settings) -> Void = { _ in }) -> App {
        let app = testApp(configure: configure)
        app.post("/form") { request in "fields=\(request.params.form.count) files=\(request.params.files.count)" }
        app.get("/query") { request in "parameters=\(request.params.query.count)" }
        return app
    }

    private func post(_ app: App, _ body: String, headers: HttpHeaders = urlencoded, csrf: Bool = true) async throws -> TestResponse {
        let client = TestClient(app)
        client.sendsCsrfToken = csrf
        return try await client.request(.POST, "/form", headers: headers, body: Array(body.utf8))
    }

    /// A multipart body with text fields `(name, value)` and files `(name, bytes)`.
    private static func multipartBody(fields: [(String, String)], files: [(String, String)] = []) -> String {
        var parts = fields.map { "--\(boundary)\r\nContent-Disposition: form-data; name=\"\($0.0)\"\r\n\r\n\($0.1)\r\n" }
        parts += files.map {
            "--\(boundary)\r\nContent-Disposition: form-data; name=\"\($0.0)\"; filename=\"f.bin\"\r\nContent-Type: application/octet-stream\r\n\r\n\($0.1)\r\n"
        }
        return parts.joined() + "--\(boundary)--\r\n"
    }

    @Test func theDefaultsAreFlasks() {
        #expect(Settings().formFieldLimit == 1000)
        #expect(Settings().formMemoryLimit == 500_000)
    }

    @Test func aThousandFieldsAreAcceptedAndOneMoreIs413() async throws {
        let app = countingApp()
        let fields = (0..<1000).map { "f\($0)=v" }
        let atLimit = try await post(app, fields.joined(separator: "&"))
        #expect(atLimit.status == .ok)
        #expect(atLimit.text == "fields=1000 files=0")
        // Empty pieces are no fields; a piece with an empty name is one (it is decoded).
        #expect(try await post(app, "&&" + fields.joined(separator: "&") + "&&").text == "fields=1000 files=0")
        let over = try await post(app, (fields + ["=x"]).joined(separator: "&"))
        #expect(over.status == .payloadTooLarge)
        #expect(over.text.contains("more than 1000 fields"))
    }

    @Test func tooManyFieldsAre413BeforeTheCsrfCheck() async throws {
        // A flood of empty fields from a client with no token: refused for its size, and the
        // fields after the limit are never decoded (the last one's bad escape is not seen).
        let app = countingApp()
        let flood = String(repeating: "a&", count: 200_000) + "b=%zz"
        let response = try await post(app, flood, csrf: false)
        #expect(response.status == .payloadTooLarge)
        // The same count of fields is refused by the CSRF check, after decoding.
        #expect(try await post(app, "a&a", csrf: false).status == .forbidden)
    }

    @Test func fieldsExactlyAtTheMemoryLimitAreAcceptedAndOneByteMoreIs413() async throws {
        let app = countingApp { $0.formMemoryLimit = 100 }
        // Names and values, decoded: 1 + 49 + 2 + 48 = 100 bytes.
        let value = String(repeating: "v", count: 49)
        let atLimit = try await post(app, "a=\(value)&bb=\(String(repeating: "%41", count: 48))")
        #expect(atLimit.status == .ok)
        #expect(atLimit.text == "fields=2 files=0")
        let over = try await post(app, "a=\(value)&bb=\(String(repeating: "%41", count: 49))")
        #expect(over.status == .payloadTooLarge)
        #expect(over.text.contains("more than 100 bytes"))
        // One field far over the limit: refused without looking for its end in the whole body.
        let huge = try await post(app, "a=" + String(repeating: "x", count: 50_000))
        #expect(huge.status == .payloadTooLarge)
        // A piece with an empty name is not kept, so not counted.
        #expect(try await post(app, "=" + String(repeating: "x", count: 500)).text == "fields=0 files=0")
    }

    @Test func queryStringsHaveTheFieldLimitAndA414() async throws {
        let app = countingApp()
        let parameters = (0..<1000).map { "p\($0)=1" }
        let atLimit = try await TestClient(app).get("/query?" + parameters.joined(separator: "&"))
        #expect(atLimit.status == .ok)
        #expect(atLimit.text == "parameters=1000")
        let over = try await TestClient(app).get("/query?" + (parameters + ["one=more"]).joined(separator: "&"))
        #expect(over.status == .uriTooLong)
        #expect(over.text.contains("more than 1000 parameters"))
    }

    @Test func multipartPartsCountTowardTheFieldLimitFilesToo() async throws {
        let app = countingApp { $0.formFieldLimit = 3 }
        let atLimit = try await post(app, Self.multipartBody(fields: [("a", "1"), ("b", "2")], files: [("f", "x")]), headers: Self.multipart)
        #expect(atLimit.status == .ok)
        #expect(atLimit.text == "fields=2 files=1")
        let over = try await post(app, Self.multipartBody(fields: [("a", "1"), ("b", "2")], files: [("f", "x"), ("g", "y")]), headers: Self.multipart)
        #expect(over.status == .payloadTooLarge)
        #expect(over.text.contains("more than 3 fields"))
    }

    @Test func multipartTextFieldsCountTowardTheMemoryLimitFilesDoNot() async throws {
        let app = countingApp { $0.formMemoryLimit = 100 }
        let files = [("doc", String(repeating: "F", count: 40_000))]
        // 1 + 99 bytes of text: at the limit, whatever the file's size.
        let atLimit = try await post(app, Self.multipartBody(fields: [("a", String(repeating: "v", count: 99))], files: files), headers: Self.multipart)
        #expect(atLimit.status == .ok)
        #expect(atLimit.text == "fields=1 files=1")
        let over = try await post(app, Self.multipartBody(fields: [("a", String(repeating: "v", count: 100))], files: files), headers: Self.multipart)
        #expect(over.status == .payloadTooLarge)
        #expect(over.text.contains("more than 100 bytes"))
    }

    @Test func aMultipartBodyParsedInSlicesKeepsEveryByte() async throws {
        // Parts larger than the slices the parser is fed, and boundaries across their edges.
        let app = testApp()
        app.post("/form") { request in
            let file = try #require(request.params.file("doc"))
            return "\(request.params["before"]?.count ?? -1) \(file.data.count) \(Set(file.data)) \(request.params["after"]?.count ?? -1)"
        }
        for size in [16 << 10 - 200, 16 << 10 - 60, 16 << 10, 40_000] {
            let body = Self.multipartBody(
                fields: [("before", String(repeating: "b", count: size))], files: [("doc", String(repeating: "\r", count: size))])
                .replacingOccurrences(of: "--\(Self.boundary)--", with: "--\(Self.boundary)\r\nContent-Disposition: form-data; name=\"after\"\r\n\r\n\(String(repeating: "a", count: 17))\r\n--\(Self.boundary)--")
            let response = try await post(app, body, headers: Self.multipart)
            #expect(response.status == .ok, "\(size)")
            #expect(response.text == "\(size) \(size) [13] 17", "\(size)")
        }
    }

    @Test func theLimitsMustBePositive() async throws {
        let app = testApp { $0.formFieldLimit = 0; $0.formMemoryLimit = 0 }
        do {
            _ = try await app.respond(method: .GET, uri: "/")
            Issue.record("expected a configuration error")
        } catch let error as ConfigurationError {
            #expect(error.message.contains("settings.formFieldLimit is 0"))
            #expect(error.message.contains("settings.formMemoryLimit is 0"))
        }
    }
}
