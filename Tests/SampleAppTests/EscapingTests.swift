import Foundation
import Micro
import MicroTesting
import Testing
@testable import SampleApp

/// No element or attribute of a page comes from input: every field of every tool, sent each
/// hostile payload (GET query and POST form, signed in), gives a page whose markup, as
/// Python's `html.parser` reads it, is the markup of the same request with the payload's
/// harmless twin.
@Suite struct EscapingTests {
    /// A tool: its fields, and the forms a payload is put into (one field at a time).
    struct Tool: Sendable, CustomTestStringConvertible {
        let path: String
        let fields: [String]
        let forms: [[(name: String, value: String)]]
        var testDescription: String { path }
    }

    /// A bcrypt hash of "abc" at cost 4, for the verify operation.
    static let hash = (try? Password.hash("abc", cost: 4)) ?? ""

    static let tools = [
        Tool(
            path: "/tools/date-conversion",
            fields: ["millis", "unit", "date", "format", "zone", "to", "now"],
            forms: [
                [("millis", "0"), ("to", "date"), ("format", "iso8601"), ("zone", "UTC")],
                [("date", "1970-01-01T00:00:00Z"), ("to", "millis"), ("format", "yyyy-MM-dd"), ("zone", "Europe/Paris"), ("unit", "seconds")],
                [("now", "1"), ("format", "rfc1123")],
            ]),
        Tool(
            path: "/tools/data-encoding",
            fields: ["input", "op"],
            forms: DataEncoding.Operation.allCases.map { [("input", "abc"), ("op", $0.rawValue)] }),
        Tool(
            path: "/tools/data-encryption",
            fields: ["input", "op", "key", "hash", "cost"],
            forms: DataEncryption.Operation.allCases.map { [("input", "abc"), ("op", $0.rawValue), ("key", "k"), ("hash", hash), ("cost", "4")] }),
    ]

    @Test(arguments: tools)
    func noMarkupComesFromAnyField(tool: Tool) async throws {
        let client = try await signedInClient()
        var exchanges: [Exchange] = []
        for form in tool.forms {
            for field in tool.fields {
                for payload in HostilePayload.all {
                    for method in [HttpMethod.GET, .POST] {
                        let label = "\(method) \(tool.path) \(field)=\(payload.name) in \(form.map { "\($0.name)=\($0.value.prefix(12))" })"
                        exchanges.append(Exchange(
                            label: label,
                            hostile: try await send(client, method, tool.path, Self.form(form, field, payload.bytes)),
                            harmless: try await send(client, method, tool.path, Self.form(form, field, payload.twin))))
                    }
                }
            }
        }
        try Self.compare(exchanges)
    }

    @Test func aRememberedFormatIsEscapedOnEveryLaterPage() async throws {
        // The date tool keeps a valid format in the session: a short payload is a valid pattern.
        let payload = HostilePayload("short meta refresh", HostilePayload.shortMetaRefresh)
        let hostile = try await signedInClient()
        let harmless = try await signedInClient()
        let remember = "/tools/date-conversion?millis=0&to=date&format="
        let stored = try await hostile.get(remember + HostilePayload.percentEncoded(payload.bytes))
        _ = try await harmless.get(remember + HostilePayload.percentEncoded(payload.twin))
        #expect(stored.status == .ok)
        var exchanges: [Exchange] = []
        for path in [
            "/tools/date-conversion", "/tools/date-conversion?millis=0", "/tools/date-conversion?millis=0&to=date&zone=Asia/Tokyo",
            "/tools/date-conversion?now=1", "/tools/date-conversion?date=1970-01-01T00:00:00Z&to=millis",
            "/tools/date-conversion?millis=abc&to=date", "/", "/tools/data-encoding", "/tools/data-encryption", "/protected", "/signout",
        ] {
            exchanges.append(Exchange(label: "GET \(path)", hostile: try await hostile.get(path), harmless: try await harmless.get(path)))
        }
        // The format is shown again from the session, not from the request.
        let later = try await hostile.get("/tools/date-conversion")
        #expect(later.text.contains("meta http-equiv=refresh content="))
        try Self.compare(exchanges)
    }

    @Test func theReturnPathAfterSignInIsEscapedWhereItLands() async throws {
        var exchanges: [Exchange] = []
        let targets = ["/tools/date-conversion?millis=0&to=date&format=", "/tools/date-conversion?millis=0&zone=", "/tools/data-encoding?op=html-escape&input="]
        // Each sign-in checks a bcrypt hash: every payload in one field, the first in the others.
        let cases = HostilePayload.all.map { ($0, targets[0]) } + targets.dropFirst().map { (HostilePayload.all[0], $0) }
        for (payload, target) in cases {
            var pages: [TestResponse] = []
            for bytes in [payload.bytes, payload.twin] {
                let client = try Self.client()
                _ = try await client.get(target + HostilePayload.percentEncoded(bytes))
                let signIn = try await client.post("/signin", form: ["username": "user", "password": "pw"])
                let back = signIn.location ?? "/"
                // Back to the page first asked for; a query that is not UTF-8 was refused (400)
                // before the page could ask for a sign-in, and the sign-in goes home.
                if String(bytes: bytes, encoding: .utf8) != nil {
                    #expect(back.hasPrefix(String(target.prefix { $0 != "?" }) + "?"), "\(payload.name): back to \(back)")
                }
                pages.append(try await client.get(back))
            }
            exchanges.append(Exchange(label: "sign-in back to \(target)\(payload.name)", hostile: pages[0], harmless: pages[1]))
        }
        try Self.compare(exchanges)
    }

    @Test func otherReflectedValues() async throws {
        let client = try await signedInClient()
        let anonymous = try Self.client()
        var exchanges: [Exchange] = []
        for payload in HostilePayload.all {
            for (who, user) in [("signed in", client), ("anonymous", anonymous)] {
                for prefix in ["/tools/", "/", "/signin?next=", "/?q=", "/tools/data-encoding/"] {
                    exchanges.append(Exchange(
                        label: "\(who) GET \(prefix)\(payload.name)",
                        hostile: try await user.get(prefix + HostilePayload.percentEncoded(payload.bytes)),
                        harmless: try await user.get(prefix + HostilePayload.percentEncoded(payload.twin))))
                }
                // A JSON client gets JSON (or a redirect), never a page the payload could be read in.
                let json = try await user.get("/tools/data-encoding?op=html-unescape&input=" + HostilePayload.percentEncoded(payload.bytes), headers: ["Accept": "application/json"])
                #expect(json.contentType?.hasPrefix("text/html") != true, "\(payload.name)")
            }
        }
        try Self.compare(exchanges)
    }

    // MARK: Support

    /// A request sent with a payload and with its twin.
    struct Exchange {
        let label: String
        let hostile: TestResponse
        let harmless: TestResponse
    }

    /// The sample app, with one user ("user", password "pw") whose hash is of the lowest cost:
    /// these tests sign in many times.
    static func client() throws -> TestClient {
        let file = FileManager.default.temporaryDirectory.appendingPathComponent("micro-escaping-\(UUID().uuidString).yml").path
        try Data("username: user\npassword_hash: \(try Password.hash("pw", cost: 4))\n".utf8).write(to: URL(fileURLWithPath: file))
        defer { try? FileManager.default.removeItem(atPath: file) }
        return TestClient(try sampleApp(credentials: file))
    }

    private func signedInClient() async throws -> TestClient {
        let client = try Self.client()
        let response = try await client.post("/signin", form: ["username": "user", "password": "pw"])
        #expect(response.location == "/")
        // The welcome message shows once: on this page, not on the compared ones.
        _ = try await client.get("/")
        return client
    }

    /// `form` with `field` set to `value` (added when the form does not have it).
    static func form(_ form: [(name: String, value: String)], _ field: String, _ value: [UInt8]) -> [(name: String, value: [UInt8])] {
        var pairs = form.map { (name: $0.name, value: Array($0.value.utf8)) }
        if let index = pairs.firstIndex(where: { $0.name == field }) {
            pairs[index].value = value
        } else {
            pairs.append((field, value))
        }
        return pairs
    }

    private func send(_ client: TestClient, _ method: HttpMethod, _ path: String, _ pairs: [(name: String, value: [UInt8])]) async throws -> TestResponse {
        let encoded = pairs.map { HostilePayload.percentEncoded(Array($0.name.utf8)) + "=" + HostilePayload.percentEncoded($0.value) }.joined(separator: "&")
        if method == .GET { return try await client.get(path + "?" + encoded) }
        return try await client.request(method, path, headers: ["Content-Type": "application/x-www-form-urlencoded"], body: Array(encoded.utf8))
    }

    /// Fails, naming a few, unless every exchange's two pages have the same status and, when
    /// they are HTML, the same markup.
    static func compare(_ exchanges: [Exchange], sourceLocation: SourceLocation = #_sourceLocation) throws {
        var pages: [String] = []
        var index: [String: Int] = [:]
        func slot(_ text: String) -> Int {
            if let known = index[text] { return known }
            index[text] = pages.count
            pages.append(text)
            return pages.count - 1
        }
        let slots = exchanges.map { (slot($0.hostile.text), slot($0.harmless.text)) }
        let markup = try HtmlMarkup.of(pages)
        var differences: [String] = []
        for (exchange, (hostile, harmless)) in zip(exchanges, slots) {
            if exchange.hostile.status.code >= 500 {
                differences.append("\(exchange.label): status \(exchange.hostile.status.code)")
            } else if exchange.hostile.status != exchange.harmless.status {
                differences.append("\(exchange.label): status \(exchange.hostile.status.code), its twin \(exchange.harmless.status.code)")
            } else if markup[hostile] != markup[harmless] {
                let added = markup[hostile].filter { !markup[harmless].contains($0) }
                differences.append("\(exchange.label): markup \(added) not in its twin's page")
            }
        }
        #expect(differences.isEmpty, """
            \(differences.count) of \(exchanges.count) pages differ from their twin's; the first:
            \(differences.prefix(8).joined(separator: "\n"))
            """, sourceLocation: sourceLocation)
    }
}
