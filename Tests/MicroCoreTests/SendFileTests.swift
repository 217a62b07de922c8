import Foundation
import MicroCore
import MicroTestSupport
import MicroTesting
import Testing

/// `request.sendFile` and `request.sendData`: types, dispositions, names and what is refused.
/// The conditional and range rules they share with static files are in RangeRequestTests.
@Suite struct SendFileTests {
    @Test func sendsAFileWithItsTypeAndValidators() async throws {
        let folder = try TemporaryFolder(["reports/q3.pdf": "%PDF-1.7 q3", "reports/notes.txt": "notes\n"])
        defer { folder.remove() }
        let reports = folder.file("reports")
        let app = testApp()
        app.get("/reports/:name") { request in try request.sendFile(request.params["name"] ?? "", in: reports) }
        app.get("/download/:name") { request in
            try request.sendFile(request.params["name"] ?? "", in: reports, disposition: .attachment)
        }
        app.get("/latest") { request in try request.sendFile(reports + "/q3.pdf", filename: "Q3 report.pdf") }
        app.get("/shown") { request in try request.sendFile(reports + "/q3.pdf", filename: "Q3.pdf", disposition: .inline) }
        app.get("/typed") { request in try request.sendFile("notes.txt", in: reports, contentType: "text/markdown") }
        let client = TestClient(app)

        let pdf = try await client.get("/reports/q3.pdf")
        #expect(pdf.status == .ok)
        #expect(pdf.text == "%PDF-1.7 q3")
        #expect(pdf.contentType == "application/pdf")
        #expect(pdf.headers.first(name: "Content-Length") == "11")
        #expect(pdf.headers.first(name: "ETag")?.hasPrefix("\"") == true)
        #expect(pdf.headers.first(name: "Last-Modified")?.hasSuffix(" GMT") == true)
        #expect(pdf.headers.first(name: "Accept-Ranges") == "bytes")
        // Sinatra's rule: no name and no disposition, no header.
        #expect(pdf.headers.first(name: "Content-Disposition") == nil)
        #expect(try await client.get("/reports/notes.txt").contentType == "text/plain; charset=utf-8")

        let download = try await client.get("/download/q3.pdf")
        #expect(download.headers.first(name: "Content-Disposition") == "attachment; filename=\"q3.pdf\"")
        let latest = try await client.get("/latest")
        #expect(latest.headers.first(name: "Content-Disposition") == "attachment; filename=\"Q3 report.pdf\"")
        #expect(latest.contentType == "application/pdf")
        #expect(try await client.get("/shown").headers.first(name: "Content-Disposition") == "inline; filename=\"Q3.pdf\"")
        #expect(try await client.get("/typed").contentType == "text/markdown")
    }

    @Test func pathsOutsideTheFolderMissingFilesAndFoldersAre404() async throws {
        let folder = try TemporaryFolder([
            "files/ok.txt": "ok\n", "files/sub/inner.txt": "inner\n", "files/.env": "SECRET=1\n", "secret.txt": "TOP SECRET\n",
        ])
        defer { folder.remove() }
        let files = folder.file("files")
        try FileManager.default.createSymbolicLink(atPath: files + "/leak.txt", withDestinationPath: folder.file("secret.txt"))
        try FileManager.default.createSymbolicLink(atPath: files + "/up", withDestinationPath: folder.path)
        let app = testApp()
        app.get("/files/*") { request in try request.sendFile(request.params.splat[0], in: files) }
        app.get("/raw") { request in try request.sendFile(request.params["path"] ?? "") }
        let client = TestClient(app)

        let attempts = [
            "../secret.txt", "sub/../../secret.txt", "%2e%2e/secret.txt", "..%2fsecret.txt", ".env", "%2eenv", "leak.txt",
            "up/secret.txt", "sub", "sub/", "missing.txt", "..%5csecret.txt", "ok.txt%00", "%2fetc%2fpasswd",
        ]
        for attempt in attempts {
            let response = try await client.get("/files/" + attempt)
            #expect(response.status == .notFound || response.status == .badRequest, "\(attempt) -> \(response.status)")
            #expect(!response.text.contains("TOP SECRET") && !response.text.contains("SECRET=1"), "\(attempt) leaked a file")
        }
        #expect(try await client.get("/files/ok.txt").text == "ok\n")
        #expect(try await client.get("/files/sub/inner.txt").text == "inner\n")
        // Without a folder the app chose the path: a missing file or a folder is still a 404.
        #expect(try await client.get("/raw?path=" + folder.file("missing.txt")).status == .notFound)
        #expect(try await client.get("/raw?path=" + files).status == .notFound)
    }

    /// A folder named `café` in one normalization form is not the folder named in the other,
    /// though Swift's `hasPrefix` says one path starts with the other.
    @Test func aSymlinkIntoASiblingSpeltTheSameWayIsRefused() async throws {
        let folder = try TemporaryFolder(["caf\u{E9}/public/ok.txt": "ok\n", "cafe\u{301}/public/secret.txt": "TOP SECRET\n"])
        defer { folder.remove() }
        let root = folder.file("caf\u{E9}/public")
        try FileManager.default.createSymbolicLink(
            atPath: root + "/leak.txt", withDestinationPath: folder.file("cafe\u{301}/public/secret.txt"))
        let app = testApp(publicFolder: root)
        app.get("/send/:name") { request in try request.sendFile(request.params["name"] ?? "", in: root) }
        let client = TestClient(app)
        #expect(try await client.get("/ok.txt").text == "ok\n")
        #expect(try await client.get("/send/ok.txt").text == "ok\n")
        for path in ["/leak.txt", "/send/leak.txt"] {
            let response = try await client.get(path)
            #expect(response.status == .notFound, "\(path)")
            #expect(!response.text.contains("TOP SECRET"), "\(path)")
        }
    }

    @Test func aMissingFolderIsA404AndAWarning() async throws {
        let folder = try TemporaryFolder()
        defer { folder.remove() }
        let log = LogRecorder()
        var settings = Settings()
        settings.environment = .test
        settings.accessLog = false
        let app = App(settings: settings, logger: log.logger)
        app.get("/nowhere") { request in try request.sendFile("ok.txt", in: folder.file("missing")) }
        #expect(try await TestClient(app).get("/nowhere").status == .notFound)
        #expect(log.messages(at: .warning).contains { $0.contains(folder.file("missing")) && $0.contains("does not exist") })
    }

    @Test func sendsDataWithATagHashedFromTheBytes() async throws {
        let app = testApp()
        app.get("/export.csv") { request in try request.sendData("a,b\n1,2\n", filename: "export.csv") }
        app.get("/other.csv") { request in try request.sendData("a,b\n1,3\n", filename: "export.csv") }
        app.get("/bytes") { request in try request.sendData([0, 1, 2, 255] as [UInt8]) }
        app.get("/text") { request in try request.sendData("plain") }
        app.get("/typed") { request in try request.sendData("{}", filename: "x.bin", contentType: "application/json") }
        app.get("/route-typed") { request in
            request.response.contentType = "text/x-log"
            try request.sendData("log", filename: "x.txt")
        }
        app.get("/shown") { request in try request.sendData("abc", disposition: .inline) }
        let client = TestClient(app)

        let csv = try await client.get("/export.csv")
        #expect(csv.text == "a,b\n1,2\n")
        #expect(csv.contentType == "text/csv; charset=utf-8")
        #expect(csv.headers.first(name: "Content-Disposition") == "attachment; filename=\"export.csv\"")
        #expect(csv.headers.first(name: "Last-Modified") == nil)
        let etag = try #require(csv.headers.first(name: "ETag"))
        #expect(etag.utf8.count == 34 && etag.dropFirst().dropLast().allSatisfy(\.isHexDigit))
        #expect(try await client.get("/export.csv").headers.first(name: "ETag") == etag)
        #expect(try await client.get("/other.csv").headers.first(name: "ETag") != etag)

        let bytes = try await client.get("/bytes")
        #expect(bytes.body == [0, 1, 2, 255])
        #expect(bytes.contentType == "application/octet-stream")
        #expect(bytes.headers.first(name: "Content-Disposition") == nil)
        #expect(try await client.get("/text").contentType == "text/plain; charset=utf-8")
        #expect(try await client.get("/typed").contentType == "application/json")
        #expect(try await client.get("/route-typed").contentType == "text/x-log")
        #expect(try await client.get("/shown").headers.first(name: "Content-Disposition") == "inline")
    }

    @Test func keepsTheHeadersSetBeforeAndHaltsFromAFilter() async throws {
        let folder = try TemporaryFolder(["files/a.txt": "a\n"])
        defer { folder.remove() }
        let app = testApp()
        app.before("/guarded") { request in
            request.response.headers.add(name: "X-Checked", value: "yes")
            try request.sendFile("a.txt", in: folder.file("files"))
        }
        app.get("/guarded") { _ in "the route is never reached" }
        app.get("/cached") { request in
            request.response.headers.add(name: "Cache-Control", value: "private, max-age=3600")
            try request.sendFile("a.txt", in: folder.file("files"))
        }
        let client = TestClient(app)
        let guarded = try await client.get("/guarded")
        #expect(guarded.text == "a\n")
        #expect(guarded.headers.first(name: "X-Checked") == "yes")
        #expect(try await client.get("/cached").headers.first(name: "Cache-Control") == "private, max-age=3600")
    }
}

/// File names a client or a user chose, in `Content-Disposition`.
@Suite struct DownloadNameTests {
    /// Names that try to break out of the header, hide their extension or climb folders.
    static let hostile: [(name: String, text: String)] = [
        ("quote", "a\"b.txt"),
        ("backslash", "a\\\"b.txt"),
        ("CR LF", "a\r\nSet-Cookie: x=1\r\n.txt"),
        ("LF only", "a\nb.txt"),
        ("NUL", "a\u{0}b.txt"),
        ("DEL and C1", "a\u{7F}\u{85}b.txt"),
        ("tab", "a\tb.txt"),
        ("RTL override", "invoice\u{202E}fdp.exe"),
        ("isolates and marks", "a\u{2066}\u{200F}\u{061C}b.txt"),
        ("line separator", "a\u{2028}b\u{2029}.txt"),
        ("zero-width", "a\u{200B}\u{FEFF}b.txt"),
        ("parent folders", "../../etc/passwd"),
        ("windows folders", "..\\..\\windows\\win.ini"),
        ("fullwidth slash", "a\u{FF0F}b.txt"),
        ("combining marks", "x\"\u{301}>\u{301}\u{600}<e\u{301}.pdf"),
        ("only marks", "\u{301}\u{302}"),
        ("invalid UTF-8", String(decoding: [0x61, 0xFF, 0xFE, 0xC0, 0xAF, 0x62] as [UInt8], as: UTF8.self)),
        ("percent", "100%25.txt"),
        ("semicolon and equals", "a; filename=evil.exe"),
        ("empty", ""),
        ("spaces", "   "),
        ("private use", "a\u{E000}b.txt"),
        ("emoji", "\u{1F468}\u{200D}\u{1F469}.png"),
        ("long", String(repeating: "\u{E9}", count: 2000) + ".txt"),
    ]

    @Test(arguments: hostile.map(\.name))
    func hostileNamesNeverBreakTheHeader(label: String) async throws {
        let name = try #require(Self.hostile.first { $0.name == label }).text
        let app = testApp()
        app.get("/d") { request in try request.sendData("x", filename: name) }
        let response = try await TestClient(app).get("/d")
        #expect(response.status == .ok)
        let values = response.headers["Content-Disposition"]
        #expect(values.count == 1)
        let value = try #require(values.first)
        #expect(response.headers["Set-Cookie"].isEmpty)
        // Printable ASCII only: no CR, LF, NUL or anything a client could split on.
        #expect(value.utf8.allSatisfy { $0 >= 0x20 && $0 < 0x7F }, "\(value.debugDescription)")

        let parsed = try #require(ParsedDisposition(value), "\(value.debugDescription)")
        #expect(parsed.type == "attachment")
        for shown in [parsed.fallback, parsed.encoded].compactMap({ $0 }) {
            #expect(!shown.isEmpty)
            #expect(!shown.contains("/") && !shown.contains("\\"), "\(shown.debugDescription)")
            #expect(shown.unicodeScalars.allSatisfy { scalar in
                let category = scalar.properties.generalCategory
                return category != .control && category != .format && category != .lineSeparator
                    && category != .paragraphSeparator && category != .privateUse
            }, "\(shown.debugDescription)")
        }
    }

    @Test func namesKeepTheirLettersInFilenameStar() async throws {
        let cases: [(name: String, header: String)] = [
            ("report.pdf", "attachment; filename=\"report.pdf\""),
            ("Q3 report (final).pdf", "attachment; filename=\"Q3 report (final).pdf\""),
            ("r\u{E9}sum\u{E9}.pdf", "attachment; filename=\"resume.pdf\"; filename*=UTF-8''r%C3%A9sum%C3%A9.pdf"),
            ("re\u{301}sume\u{301}.pdf", "attachment; filename=\"resume.pdf\"; filename*=UTF-8''re%CC%81sume%CC%81.pdf"),
            ("\u{65E5}\u{672C}.txt", "attachment; filename=\"__.txt\"; filename*=UTF-8''%E6%97%A5%E6%9C%AC.txt"),
            ("invoice\u{202E}fdp.exe", "attachment; filename=\"invoice_fdp.exe\""),
            ("a\"b.txt", "attachment; filename=\"a_b.txt\"; filename*=UTF-8''a%22b.txt"),
            ("../../etc/passwd", "attachment; filename=\".._.._etc_passwd\""),
            ("a\r\nb.txt", "attachment; filename=\"a__b.txt\""),
            ("100%.txt", "attachment; filename=\"100_.txt\"; filename*=UTF-8''100%25.txt"),
            ("", "attachment; filename=\"download\""),
        ]
        for (name, header) in cases {
            let app = testApp()
            app.get("/d") { request in try request.sendData("x", filename: name) }
            let response = try await TestClient(app).get("/d")
            #expect(response.headers.first(name: "Content-Disposition") == header, "\(name.debugDescription)")
        }
        // The same value for a response built by hand.
        #expect(ContentDisposition.inline.headerValue(filename: "r\u{E9}sum\u{E9}.pdf") == "inline; filename=\"resume.pdf\"; filename*=UTF-8''r%C3%A9sum%C3%A9.pdf")
        #expect(ContentDisposition.attachment.headerValue(filename: nil) == "attachment")
    }
}

/// A `Content-Disposition` value split as RFC 6266 reads it: the type, the quoted `filename`
/// and the decoded `filename*`. Nil when it does not parse.
private struct ParsedDisposition {
    var type: String
    var fallback: String?
    var encoded: String?

    init?(_ value: String) {
        // Parameters are `; name=value`; the quoted fallback holds no `"` or `\` of its own.
        var rest = Substring(value)
        guard let semicolon = rest.firstIndex(of: ";") else {
            type = value
            return
        }
        type = String(rest[..<semicolon])
        rest = rest[rest.index(after: semicolon)...]
        while !rest.isEmpty {
            guard rest.hasPrefix(" ") else { return nil }
            rest = rest.dropFirst()
            if rest.hasPrefix("filename=\"") {
                rest = rest.dropFirst("filename=\"".count)
                guard let close = rest.firstIndex(of: "\"") else { return nil }
                let quoted = rest[..<close]
                guard !quoted.contains("\\") else { return nil }
                fallback = String(quoted)
                rest = rest[rest.index(after: close)...]
            } else if rest.hasPrefix("filename*=UTF-8''") {
                rest = rest.dropFirst("filename*=UTF-8''".count)
                let end = rest.firstIndex(of: ";") ?? rest.endIndex
                let text = rest[..<end]
                let attrChars = Set("!#$&+-.^_`|~%".utf8)
                guard text.utf8.allSatisfy({ $0.isASCIIAlphanumeric || attrChars.contains($0) }),
                    let decoded = text.removingPercentEncoding, decoded.utf8.elementsEqual(Self.bytes(of: text))
                else { return nil }
                encoded = decoded
                rest = rest[end...]
            } else {
                return nil
            }
            if rest.hasPrefix(";") { rest = rest.dropFirst() } else if !rest.isEmpty { return nil }
        }
    }

    /// The bytes `%XX` escapes spell, to check that they decode to valid UTF-8 unchanged.
    private static func bytes(of text: Substring) -> [UInt8] {
        var out: [UInt8] = []
        var iterator = text.utf8.makeIterator()
        while let byte = iterator.next() {
            if byte == UInt8(ascii: "%"), let high = iterator.next(), let low = iterator.next(),
                let value = UInt8(String(decoding: [high, low], as: UTF8.self), radix: 16)
            {
                out.append(value)
            } else {
                out.append(byte)
            }
        }
        return out
    }
}

extension UInt8 {
    fileprivate var isASCIIAlphanumeric: Bool {
        (self >= UInt8(ascii: "a") && self <= UInt8(ascii: "z")) || (self >= UInt8(ascii: "A") && self <= UInt8(ascii: "Z"))
            || (self >= UInt8(ascii: "0") && self <= UInt8(ascii: "9"))
    }
}

/// A part of a file and a hostile name as a client reads them off the socket.
@Suite struct SendFileSocketTests {
    @Test func aRangeAndAHostileNameOnTheWire() async throws {
        let folder = try TemporaryFolder(["files/digits.txt": "0123456789"])
        defer { folder.remove() }
        let app = testApp()
        app.get("/digits") { request in
            try request.sendFile("digits.txt", in: folder.file("files"), filename: "a\r\nSet-Cookie: x=1\r\n\u{202E}.txt")
        }
        let server = try await app.start()
        do {
            let client = try await RawHttpClient.connect(port: server.port)
            try await client.send("GET /digits HTTP/1.1\r\nHost: localhost\r\nRange: bytes=3-5\r\n\r\n")
            let part = try await client.readResponse()
            #expect(part.status == 206)
            #expect(part.text == "345")
            #expect(part.header("Content-Range") == "bytes 3-5/10")
            #expect(part.header("Content-Length") == "3")
            #expect(part.header("Set-Cookie") == nil)
            #expect(part.header("Content-Disposition") == "attachment; filename=\"a__Set-Cookie: x=1___.txt\"")
            // The connection goes on: the next answer starts where this one ended.
            try await client.send("GET /digits HTTP/1.1\r\nHost: localhost\r\nRange: bytes=-2\r\n\r\n")
            #expect(try await client.readResponse().text == "89")
            await client.close()
        } catch {
            _ = await server.shutdown()
            throw error
        }
        _ = await server.shutdown()
    }
}
