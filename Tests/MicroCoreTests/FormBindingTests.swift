import Foundation
import MicroCore
import MicroTestSupport
import MicroTesting
import Testing

/// `request.decode(T.self)` from form bodies, query strings and JSON: every kind of field,
/// missing, empty and garbage values, and hostile input.
@Suite struct FormBindingTests {
    enum Priority: String, Codable, CaseIterable { case low, normal, high }
    enum Level: Int, Codable { case one = 1, two = 2 }

    struct Address: Codable, Equatable { var city: String; var zip: String? }
    struct Item: Codable, Equatable { var name: String; var count: Int }

    /// One field of each kind.
    struct Kinds: Codable, Equatable {
        var text: String
        var int: Int
        var small: Int8
        var unsigned: UInt
        var double: Double
        var float: Float
        var decimal: Decimal
        var flag: Bool
        var unchecked: Bool
        var date: Date
        var link: URL
        var priority: Priority
        var level: Level
        var maybe: String?
        var maybeNumber: Int?
        var tags: [String]
        var ids: [Int]
        var address: Address
        var items: [Item]
        var none: [String]
    }

    /// An app that answers `/kinds` (any method) with the decoded value, as JSON.
    private func kindsApp() -> App {
        let app = isolatedApp()
        app.skipCsrf("/*")
        app.get("/kinds") { request in try request.decode(Kinds.self) }
        app.post("/kinds") { request in try request.decode(Kinds.self) }
        return app
    }

    private static let fields: KeyValuePairs<String, String> = [
        "text": "héllo wörld", "int": "-42", "small": "127", "unsigned": "7", "double": "2.5e3", "float": " 1.25 ",
        "decimal": "19.99", "flag": "on", "date": "2024-03-01T12:30+01:00", "link": "https://example.com/a?b=c",
        "priority": "high", "level": "2", "maybe": "", "tags": "a", "tags": "b", "ids[]": "3", "ids[]": "1",
        "address[city]": "Oslo", "items[1][name]": "second", "items[1][count]": "2", "items[0][name]": "first",
        "items[0][count]": "1", "_csrf": "ignored", "unknown": "ignored",
    ]

    private static let expected = Kinds(
        text: "héllo wörld", int: -42, small: 127, unsigned: 7, double: 2500, float: 1.25, decimal: Decimal(string: "19.99")!,
        flag: true, unchecked: false, date: Date(timeIntervalSince1970: 1_709_292_600), link: URL(string: "https://example.com/a?b=c")!,
        priority: .high, level: .two, maybe: nil, maybeNumber: nil, tags: ["a", "b"], ids: [3, 1],
        address: Address(city: "Oslo", zip: nil), items: [Item(name: "first", count: 1), Item(name: "second", count: 2)], none: [])

    @Test func everyKindFromAFormBody() async throws {
        let response = try await TestClient(kindsApp()).post("/kinds", form: Self.fields)
        #expect(response.status == .ok, "\(response.text)")
        #expect(try response.decode(Kinds.self) == Self.expected)
    }

    @Test func everyKindFromTheQueryString() async throws {
        let query = Self.fields.map { formEncoded($0.key) + "=" + formEncoded($0.value) }.joined(separator: "&")
        let response = try await TestClient(kindsApp()).get("/kinds?" + query)
        #expect(response.status == .ok, "\(response.text)")
        #expect(try response.decode(Kinds.self) == Self.expected)
    }

    @Test func everyKindFromAMultipartBody() async throws {
        let boundary = "----MicroFormBoundary"
        var body = ""
        for (name, value) in Self.fields {
            body += "--\(boundary)\r\nContent-Disposition: form-data; name=\"\(name)\"\r\n\r\n\(value)\r\n"
        }
        body += "--\(boundary)--\r\n"
        let headers: HttpHeaders = ["Content-Type": "multipart/form-data; boundary=\(boundary)"]
        let response = try await TestClient(kindsApp()).request(.POST, "/kinds", headers: headers, body: Array(body.utf8))
        #expect(response.status == .ok, "\(response.text)")
        #expect(try response.decode(Kinds.self) == Self.expected)
    }

    @Test func everyKindFromJson() async throws {
        let json = """
            {"text": "héllo wörld", "int": -42, "small": 127, "unsigned": 7, "double": 2.5e3, "float": 1.25, "decimal": 19.99,
             "flag": true, "unchecked": false, "date": "2024-03-01T12:30+01:00", "link": "https://example.com/a?b=c",
             "priority": "high", "level": 2, "tags": ["a", "b"], "ids": [3, 1], "address": {"city": "Oslo"},
             "items": [{"name": "first", "count": 1}, {"name": "second", "count": 2}], "none": []}
            """
        let headers: HttpHeaders = ["Content-Type": "application/json; charset=utf-8"]
        let response = try await TestClient(kindsApp()).request(.POST, "/kinds", headers: headers, body: Array(json.utf8))
        #expect(response.status == .ok, "\(response.text)")
        #expect(try response.decode(Kinds.self) == Self.expected)
    }

    @Test func booleansAsFormsSendThem() async throws {
        struct Box: Codable { var on: Bool }
        let app = isolatedApp()
        app.get("/box") { request in try request.decode(Box.self).on ? "yes" : "no" }
        let client = TestClient(app)
        for value in ["on", "true", "TRUE", "1", "yes"] { #expect(try await client.get("/box?on=\(value)").text == "yes") }
        for value in ["off", "false", "0", "no", ""] { #expect(try await client.get("/box?on=\(value)").text == "no") }
        #expect(try await client.get("/box").text == "no")
        // A hidden field before the checkbox: the last value wins.
        #expect(try await client.get("/box?on=0&on=1").text == "yes")
        let garbage = try await client.get("/box?on=maybe")
        #expect(garbage.status == .badRequest)
        #expect(garbage.text.contains("on: Not true or false"))
    }

    @Test func datesInTheFormsHtmlAndApisWrite() async throws {
        struct When: Codable { var at: Date }
        let app = isolatedApp()
        app.get("/when") { request in String(Int(try request.decode(When.self).at.timeIntervalSince1970 * 1000)) }
        let client = TestClient(app)
        let cases = [
            ("2024-03-01", "1709251200000"), ("2024-03-01T12:30", "1709296200000"), ("2024-03-01 12:30:05", "1709296205000"),
            ("2024-03-01T12:30:05.250Z", "1709296205250"), ("2024-03-01T12:30:05-0500", "1709314205000"),
            ("1969-12-31T23:59:59Z", "-1000"), ("2024-02-29", "1709164800000"),
        ]
        for (text, millis) in cases {
            #expect(try await client.get("/when?at=" + formEncoded(text)).text == millis, "\(text)")
        }
        for text in ["2023-02-29", "2024-13-01", "2024-03-01T24:00", "2024-3-1", "01/03/2024", "2024-03-01T12:30+25:00", "2024-03-01T12:30:05.1234567890", "now"] {
            let response = try await client.get("/when?at=" + formEncoded(text))
            #expect(response.status == .badRequest, "\(text)")
            #expect(response.text.contains("Not a date"), "\(text)")
        }
    }

    @Test func datesInJsonAnswersAreIsoTextThatReadsBack() async throws {
        struct When: Codable, Equatable { var at: Date }
        let at = Date(timeIntervalSince1970: 1_709_296_205)
        let app = isolatedApp()
        app.get("/when") { _ in When(at: at) }
        app.post("/when") { request in try request.decode(When.self) }
        let client = TestClient(app)
        #expect(try await client.get("/when").text == #"{"at":"2024-03-01T12:30:05Z"}"#)
        let echoed = try await client.post("/when", json: When(at: at))
        #expect(echoed.status == .ok, "\(echoed.text)")
        #expect(try echoed.decode(When.self) == When(at: at))
    }

    @Test func missingEmptyAndGarbageFieldsAreAllNamed() async throws {
        struct Note: Codable { var title: String; var severity: Int; var ratio: Double; var priority: Priority; var when: Date }
        let app = isolatedApp()
        app.skipCsrf("/*")
        app.post("/note") { request in try request.decode(Note.self).title }
        let client = TestClient(app)
        let response = try await client.post("/note", form: ["severity": "high", "ratio": "", "priority": "urgent", "when": "soon"])
        #expect(response.status == .badRequest)
        // Every field at fault is named, not only the first.
        for part in [
            "title: This field is required.", "severity: Not a whole number.", "ratio: This field is required.",
            "priority: Not one of the choices: low, normal, high.", "when: Not a date",
        ] {
            #expect(response.text.contains(part), "\(part) in \(response.text)")
        }
        let json = try await client.post("/note", form: ["title": "", "severity": "3", "ratio": "x", "priority": "", "when": "2024-01-01"], headers: ["Accept": "application/json"])
        #expect(json.status == .badRequest)
        let answer = try json.decode(ErrorAnswer.self)
        #expect(answer.fields == ["ratio": "Not a number.", "priority": "This field is required."])
        #expect(answer.error.hasPrefix("The form has invalid fields."))
    }

    @Test func numbersOutOfRangeAndNotNumbers() async throws {
        struct Numbers: Codable { var int: Int?; var small: Int8?; var unsigned: UInt?; var double: Double?; var float: Float?; var decimal: Decimal? }
        let app = isolatedApp()
        app.get("/n") { request in _ = try request.decode(Numbers.self); return "ok" }
        let client = TestClient(app)
        let cases: [(String, String)] = [
            ("int=99999999999999999999999", "int: Must be a whole number from -9223372036854775808 to 9223372036854775807."),
            ("small=128", "small: Must be a whole number from -128 to 127."),
            ("unsigned=-1", "unsigned: Must be a whole number from 0 to"),
            ("int=1.5", "int: Not a whole number."), ("int=1e3", "int: Not a whole number."),
            ("int=%D9%A3", "int: Not a whole number."), ("int=%EF%BC%91", "int: Not a whole number."),
            ("double=1e999", "double: The number is out of range."), ("double=-1e999", "double: The number is out of range."),
            ("float=1e39", "float: The number is out of range."), ("double=nan", "double: Not a number."),
            ("double=inf", "double: Not a number."), ("double=0x1p3", "double: Not a number."),
            ("double=1e", "double: Not a number."), ("double=1.2.3", "double: Not a number."), ("decimal=1e999", "decimal: The number is out of range."),
            ("decimal=12abc", "decimal: Not a number."), ("decimal=1.2.3", "decimal: Not a number."), ("decimal=1-2", "decimal: Not a number."),
        ]
        for (query, message) in cases {
            let response = try await client.get("/n?" + query)
            #expect(response.status == .badRequest, "\(query)")
            #expect(response.text.contains(message), "\(query): \(response.text)")
        }
        #expect(try await client.get("/n?int=%2B5&double=-0.5e-3&decimal=%2012.50%20").text == "ok")
        let long = try await client.request(.GET, "/n", form: ["int": String(repeating: "9", count: 100_000), "double": String(repeating: "9", count: 100_000)])
        #expect(long.text.contains("int: Must be a whole number from"))
        #expect(long.text.contains("double: The number is out of range."))
    }

    @Test func hostileNamesAndValuesNeverCrash() async throws {
        struct Form: Codable { var title: String?; var tags: [String]; var nested: [String: String]? }
        let app = isolatedApp()
        app.skipCsrf("/*")
        app.post("/f") { request in try request.decode(Form.self) }
        let client = TestClient(app)
        let form: HttpHeaders = ["Content-Type": "application/x-www-form-urlencoded"]
        // Escapes that decode to invalid UTF-8 are refused before decoding.
        for body in ["title=%FF", "title=%C3", "title=%ED%A0%80", "ti%E9tle=x", "title=%"] {
            #expect(try await client.request(.POST, "/f", headers: form, body: Array(body.utf8)).status == .badRequest, "\(body)")
        }
        // A combining mark makes another name, and a value keeps its marks as sent.
        let marked = try await client.post("/f", form: ["title\u{301}": "x", "title": "e\u{301}\u{302}\u{303}<", "tags": "\u{600}\""])
        let decoded = try marked.decode(Form.self)
        #expect(decoded.title == "e\u{301}\u{302}\u{303}<")
        #expect(decoded.tags == ["\u{600}\""])
        // Names too deep, or not of the bracket shape, are plain names nobody asks for.
        let deep = "nested" + String(repeating: "[a]", count: 100_000)
        for name in [deep, "nested[a", "nested]a[", "[nested]", "nested[][a]", "nested[a]b", "tags[][]", "nested[[a]]"] {
            let response = try await client.request(.POST, "/f", headers: form, body: Array((formEncoded(name) + "=x").utf8))
            #expect(response.status == .ok, "\(name.prefix(20))")
            #expect(try response.decode(Form.self).nested == nil, "\(name.prefix(20))")
        }
        let sixteen = "nested" + String(repeating: "[a]", count: 15)
        let kept = try await client.request(.POST, "/f", headers: form, body: Array((formEncoded(sixteen) + "=x").utf8))
        #expect(kept.status == .badRequest)
        #expect(kept.text.contains("nested[a]"))
        // As many repeated keys as the form limit allows, and one more.
        let many = Array(repeating: "tags=x", count: 1000).joined(separator: "&")
        #expect(try await client.request(.POST, "/f", headers: form, body: Array(many.utf8)).decode(Form.self).tags.count == 1000)
        #expect(try await client.request(.POST, "/f", headers: form, body: Array((many + "&tags=y").utf8)).status == .payloadTooLarge)
    }

    /// A type that holds itself cannot be made from any input: a 400, not a decoder that goes
    /// on until the stack ends.
    final class Loop: Decodable { let name: String?; let next: Loop }

    @Test func aTypeThatHoldsItselfIsRefusedNotEndless() async throws {
        let app = isolatedApp()
        app.get("/loop") { request in _ = try request.decode(Loop.self); return "made" }
        let response = try await TestClient(app).get("/loop?name=a&next[name]=b")
        #expect(response.status == .badRequest)
        #expect(response.text.contains("Nested too deeply."))
    }

    @Test func everyBadElementOfAListIsOneMessage() async throws {
        struct Ids: Codable { var ids: [Int] }
        let app = isolatedApp()
        app.get("/ids") { request in try request.decode(Ids.self) }
        let client = TestClient(app)
        let bad = try await client.get("/ids?" + (0..<1000).map { "ids=x\($0)" }.joined(separator: "&"), headers: ["Accept": "application/json"])
        #expect(bad.status == .badRequest)
        #expect(try bad.decode(ErrorAnswer.self).fields == ["ids": "Not a whole number."])
        #expect(try await client.get("/ids").decode(Ids.self).ids == [])
    }

    @Test func jsonErrorsNameTheFieldAndAnswerInJson() async throws {
        struct Signup: Codable { var email: String; var age: Int; var address: Address? }
        let app = isolatedApp()
        app.post("/signup") { request in try request.decode(Signup.self).email }
        let client = TestClient(app)
        // A JSON body gets a JSON answer, whatever its Accept says.
        let json: HttpHeaders = ["Content-Type": "application/json", "Accept": "*/*"]
        let cases: [(String, [String: String]?)] = [
            (#"{"email": "a@b.c"}"#, ["age": "This field is required."]),
            (#"{"email": "a@b.c", "age": "x"}"#, ["age": "Expected a number."]),
            (#"{"email": "a@b.c", "age": null}"#, ["age": "This field is required."]),
            (#"{"email": 5, "age": 1}"#, ["email": "Expected a string."]),
            (#"{"email": "a", "age": 1, "address": {"zip": "1"}}"#, ["address.city": "This field is required."]),
            (#"{"email": "a", "age": 1e999}"#, nil),
            ("{nope", nil), ("", nil), ("[1]", nil),
            (String(repeating: "[", count: 100_000), nil),
            (#"{"email": "a", "age": 99999999999999999999999}"#, nil),
        ]
        for (body, fields) in cases {
            let response = try await client.request(.POST, "/signup", headers: json, body: Array(body.utf8))
            #expect(response.status == .badRequest, "\(body.prefix(40))")
            #expect(response.contentType == "application/json", "\(body.prefix(40))")
            let answer = try response.decode(ErrorAnswer.self)
            if let fields { #expect(answer.fields == fields, "\(body)") }
            #expect(answer.error.hasPrefix("The JSON body"), "\(answer.error)")
        }
        #expect(try await client.post("/signup", json: ["email": "a@b.c", "age": "1"]).status == .badRequest)
    }

    @Test func aBodyThatIsNeitherFormNorJsonIs415() async throws {
        struct Anything: Codable { var a: String? }
        let app = isolatedApp()
        app.skipCsrf("/*")
        app.post("/x") { request in try request.decode(Anything.self).a ?? "-" }
        let client = TestClient(app)
        let text = try await client.request(.POST, "/x", headers: ["Content-Type": "text/plain"], body: Array("a=1".utf8))
        #expect(text.status == .unsupportedMediaType)
        // No body: the query string, whatever the method.
        #expect(try await client.request(.POST, "/x?a=q").text == "q")
        // A form body: its fields only.
        #expect(try await client.post("/x?a=q", form: ["b": "1"]).text == "-")
    }

    @Test func theErrorHandlerOfItsStatusAnswersIt() async throws {
        struct Need: Codable { var n: Int }
        let app = isolatedApp()
        app.get("/need") { request in String(try request.decode(Need.self).n) }
        app.error(.badRequest) { _, error in "handled: \((error as? FormError)?.errors.fields ?? [])" }
        #expect(try await TestClient(app).get("/need?n=x").text == #"handled: ["n"]"#)
    }
}

/// The JSON answer to refused input.
struct ErrorAnswer: Decodable {
    var error: String
    var fields: [String: String]?
}

/// `text` as a form encodes it.
func formEncoded(_ text: String) -> String {
    var allowed = CharacterSet.alphanumerics.intersection(CharacterSet(charactersIn: Unicode.Scalar(0)...Unicode.Scalar(127)))
    allowed.insert(charactersIn: "-._~")
    return text.addingPercentEncoding(withAllowedCharacters: allowed) ?? text
}
