import MicroCore
import MicroTestSupport
import MicroTesting
import Testing

@Suite struct ParamsTests {
    private func echoApp() -> App {
        let app = testApp()
        app.on(.POST, "/echo/:name") { request in
            "name=\(request.params["name"] ?? "-") a=\(request.params.all("a")) q=\(request.params["q"] ?? "-")"
        }
        app.get("/echo/:name") { request in
            "name=\(request.params["name"] ?? "-") a=\(request.params.all("a")) q=\(request.params["q"] ?? "-")"
        }
        return app
    }

    @Test func queryParametersAreDecoded() async throws {
        let response = try await TestClient(echoApp()).get("/echo/x?q=caf%C3%A9+au+lait&a=1&a=2")
        #expect(response.text == #"name=x a=["1", "2"] q=café au lait"#)
    }

    @Test func theQueryStartsAtTheFirstQuestionMarkByte() async throws {
        // "?" and a combining mark after it are one Character; the target is split at the "?"
        // byte all the same (RFC 3986), in origin form and in absolute form.
        let client = TestClient(echoApp())
        for uri in ["/echo/x?\u{301}=1&q=2", "http://localhost/echo/x?\u{301}=1&q=2"] {
            let response = try await client.get(uri)
            #expect(response.status == .ok, "\(uri)")
            #expect(response.text == "name=x a=[] q=2", "\(uri)")
        }
    }

    @Test func pathBeatsFormBeatsQuery() async throws {
        let client = TestClient(echoApp())
        let response = try await client.post("/echo/path?name=query&q=fromquery&a=9", form: ["name": "form", "q": "fromform"])
        #expect(response.text == #"name=path a=["9"] q=fromform"#)
    }

    @Test func repeatedFormKeysAreAList() async throws {
        let response = try await TestClient(echoApp()).post("/echo/x", form: ["a": "1", "a": "2", "a": "3"])
        #expect(response.text == #"name=x a=["1", "2", "3"] q=-"#)
    }

    @Test func malformedPercentEncodingIs400() async throws {
        let client = TestClient(echoApp())
        let query = try await client.get("/echo/x?q=%zz")
        #expect(query.status == .badRequest)
        #expect(query.text.contains("percent-encoding"))
        let path = try await client.get("/echo/%E0%A4%A")
        #expect(path.status == .badRequest)
        var headers = HttpHeaders()
        headers.add(name: "Content-Type", value: "application/x-www-form-urlencoded")
        let form = try await client.request(.POST, "/echo/x", headers: headers, body: Array("a=%".utf8))
        #expect(form.status == .badRequest)
    }

    @Test func jsonBodiesDecode() async throws {
        struct Signup: Codable, Sendable { var email: String; var age: Int }
        let app = testApp()
        app.post("/signup") { request in
            let signup = try request.decode(Signup.self)
            return "\(signup.email) \(signup.age)"
        }
        let client = TestClient(app)
        #expect(try await client.post("/signup", json: Signup(email: "a@b.c", age: 30)).text == "a@b.c 30")

        var json = HttpHeaders()
        json.add(name: "Content-Type", value: "application/json")
        let broken = try await client.request(.POST, "/signup", headers: json, body: Array(#"{"email": "a@b.c"}"#.utf8))
        #expect(broken.status == .badRequest)
        #expect(broken.text.contains("age"))
        let garbage = try await client.request(.POST, "/signup", headers: json, body: Array("{nope".utf8))
        #expect(garbage.status == .badRequest)
        // A form decodes too (FormBindingTests); a body of another type does not.
        let form = try await client.post("/signup", form: ["email": "x"])
        #expect(form.status == .badRequest)
        #expect(form.text.contains("age: This field is required."))
        let text = try await client.request(.POST, "/signup", headers: ["Content-Type": "text/plain"], body: Array("x".utf8))
        #expect(text.status == .unsupportedMediaType)
    }

    @Test func multipartFieldsAndFiles() async throws {
        let app = testApp()
        app.post("/upload") { request in
            let file = try #require(request.params.file("doc"))
            return "\(request.params["title"] ?? "-")|\(file.filename)|\(file.contentType)|\(String(decoding: file.data, as: UTF8.self))"
        }
        let boundary = "----MicroBoundary7MA4YWxkTrZu0gW"
        let body = [
            "--\(boundary)",
            "Content-Disposition: form-data; name=\"title\"",
            "",
            "Quarterly report",
            "--\(boundary)",
            "Content-Disposition: form-data; name=\"doc\"; filename=\"report.txt\"",
            "Content-Type: text/plain",
            "",
            "line one\r\nline two",
            "--\(boundary)--",
            "",
        ].joined(separator: "\r\n")
        var headers = HttpHeaders()
        headers.add(name: "Content-Type", value: "multipart/form-data; boundary=\(boundary)")
        let response = try await TestClient(app).request(.POST, "/upload", headers: headers, body: Array(body.utf8))
        #expect(response.status == .ok)
        #expect(response.text == "Quarterly report|report.txt|text/plain|line one\r\nline two")
    }

    @Test func malformedMultipartIs400() async throws {
        let app = testApp()
        app.post("/upload") { _ in "ok" }
        var headers = HttpHeaders()
        headers.add(name: "Content-Type", value: "multipart/form-data; boundary=abc")
        let body = "--abc\r\nContent-Disposition: attachment\r\n\r\nx\r\n--abc--\r\n"
        let response = try await TestClient(app).request(.POST, "/upload", headers: headers, body: Array(body.utf8))
        #expect(response.status == .badRequest)
        var noBoundary = HttpHeaders()
        noBoundary.add(name: "Content-Type", value: "multipart/form-data")
        #expect(try await TestClient(app).request(.POST, "/upload", headers: noBoundary, body: Array("x".utf8)).status == .badRequest)
    }

    // Found by fuzz/FuzzMultipart: MultipartKit 4.7.1 traps on a header name byte above 0x7F,
    // which stopped the whole process; a UTF-8 file name (in a header value) stays accepted.
    @Test func aNonAsciiPartHeaderNameIs400AndAUtf8FileNameIsAccepted() async throws {
        let app = testApp()
        app.post("/upload") { request in request.params.file("doc")?.filename ?? "-" }
        var headers = HttpHeaders()
        headers.add(name: "Content-Type", value: "multipart/form-data; boundary=b")
        let client = TestClient(app)
        let hostile = Array("--b\r\n".utf8) + [0xC3, 0xA9] + Array(": x\r\n\r\nv\r\n--b--\r\n".utf8)
        let refused = try await client.request(.POST, "/upload", headers: headers, body: hostile)
        #expect(refused.status == .badRequest)
        #expect(refused.text.contains("header name is not ASCII"))
        let inHeaders = "--b\r\nContent-Disposition: form-data; name=\"--b\r\n\r\nv\r\n--b--\r\n"
        #expect(try await client.request(.POST, "/upload", headers: headers, body: Array(inHeaders.utf8)).status == .badRequest)
        let utf8Name = "--b\r\nContent-Disposition: form-data; name=\"doc\"; filename=\"résumé.txt\"\r\n\r\nv\r\n--b--\r\n"
        let accepted = try await client.request(.POST, "/upload", headers: headers, body: Array(utf8Name.utf8))
        #expect(accepted.status == .ok)
        #expect(accepted.text == "résumé.txt")
    }

    // Found by fuzz/FuzzMultipart: a form with no fields (the closing delimiter alone, as
    // browsers send it) was refused.
    @Test func aMultipartFormWithNoFieldsIsAccepted() async throws {
        let app = testApp()
        app.post("/upload") { request in "fields=\(request.params.form.count) files=\(request.params.files.count)" }
        var headers = HttpHeaders()
        headers.add(name: "Content-Type", value: "multipart/form-data; boundary=----WebKitFormBoundaryAbC")
        let body = Array("------WebKitFormBoundaryAbC--\r\n".utf8)
        let response = try await TestClient(app).request(.POST, "/upload", headers: headers, body: body)
        #expect(response.status == .ok)
        #expect(response.text == "fields=0 files=0")
    }

    @Test func aMultipartBodyCutShortIs400() async throws {
        let app = testApp()
        app.post("/upload") { request in request.params["title"] ?? "-" }
        var headers = HttpHeaders()
        headers.add(name: "Content-Type", value: "multipart/form-data; boundary=abc")
        let complete = "--abc\r\nContent-Disposition: form-data; name=\"title\"\r\n\r\nHello\r\n--abc--\r\n"
        #expect(try await TestClient(app).request(.POST, "/upload", headers: headers, body: Array(complete.utf8)).text == "Hello")
        let cut = "--abc\r\nContent-Disposition: form-data; name=\"title\"\r\n\r\nHel"
        #expect(try await TestClient(app).request(.POST, "/upload", headers: headers, body: Array(cut.utf8)).status == .badRequest)
    }

    @Test func bodyOverTheLimitIs413() async throws {
        let app = testApp { $0.bodyLimit = 10 }
        app.post("/x") { _ in "ok" }
        let response = try await TestClient(app).post("/x", form: ["field": "more than ten bytes"])
        #expect(response.status == .payloadTooLarge)
    }
}
