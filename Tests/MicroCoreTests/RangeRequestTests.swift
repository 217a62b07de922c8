import Foundation
import MicroCore
import MicroTestSupport
import MicroTesting
import Testing

/// One app answering the same ten bytes three ways: a static file, `sendFile` and `sendData`.
/// The conditional and range rules are shared, so each case runs against all three.
private struct DigitsApp {
    static let digits = "0123456789"
    static let paths = ["/digits.txt", "/file", "/data"]

    let folder: TemporaryFolder
    let client: TestClient

    init() throws {
        folder = try TemporaryFolder(["public/digits.txt": Self.digits, "files/digits.txt": Self.digits, "public/empty.txt": ""])
        let app = testApp(publicFolder: folder.file("public"))
        let files = folder.file("files")
        app.get("/file") { request in try request.sendFile("digits.txt", in: files) }
        app.get("/data") { request in try request.sendData(Self.digits) }
        client = TestClient(app)
    }

    /// The validators of `path`'s plain answer.
    func validators(_ path: String) async throws -> (etag: String, lastModified: String?) {
        let response = try await client.get(path)
        return (try #require(response.headers.first(name: "ETag")), response.headers.first(name: "Last-Modified"))
    }
}

@Suite struct RangeRequestTests {
    /// Satisfiable ranges: the bytes, 206, `Content-Range` and `Content-Length`.
    static let parts: [(range: String, body: String, contentRange: String)] = [
        ("bytes=0-0", "0", "bytes 0-0/10"),
        ("bytes=9-", "9", "bytes 9-9/10"),
        ("bytes=-1", "9", "bytes 9-9/10"),
        ("bytes=2-4", "234", "bytes 2-4/10"),
        ("bytes=5-100", "56789", "bytes 5-9/10"),
        ("bytes=-100", "0123456789", "bytes 0-9/10"),
        ("bytes=0-99999999999999999999999", "0123456789", "bytes 0-9/10"),
        ("Bytes=3-3", "3", "bytes 3-3/10"),
        ("bytes=0-1, 20-", "01", "bytes 0-1/10"),
        ("bytes=,7-8,", "78", "bytes 7-8/10"),
    ]

    @Test(arguments: DigitsApp.paths)
    func satisfiableRangesGetTheirBytes(path: String) async throws {
        let app = try DigitsApp()
        defer { app.folder.remove() }
        for part in Self.parts {
            let response = try await app.client.get(path, headers: ["Range": part.range])
            #expect(response.status == .partialContent, "\(part.range)")
            #expect(response.text == part.body, "\(part.range)")
            #expect(response.headers.first(name: "Content-Range") == part.contentRange, "\(part.range)")
            #expect(response.headers.first(name: "Content-Length") == String(part.body.utf8.count), "\(part.range)")
            #expect(response.headers.first(name: "Accept-Ranges") == "bytes", "\(part.range)")
            #expect(response.headers.first(name: "ETag") != nil, "\(part.range)")
        }
    }

    /// Well formed, but with no byte inside the content: 416 and the size.
    static let unsatisfiable = [
        "bytes=10-", "bytes=-0", "bytes=10-20", "bytes=99999999999999999999999-", "bytes=10-,-0", "bytes=-0,-0",
    ]

    @Test(arguments: DigitsApp.paths)
    func rangesOutsideTheContentAre416(path: String) async throws {
        let app = try DigitsApp()
        defer { app.folder.remove() }
        for range in Self.unsatisfiable {
            let response = try await app.client.get(path, headers: ["Range": range])
            #expect(response.status == .rangeNotSatisfiable, "\(range)")
            #expect(response.headers.first(name: "Content-Range") == "bytes */10", "\(range)")
            #expect(!response.text.contains("0123456789"), "\(range)")
        }
    }

    /// Garbage, other units, invalid specs (RFC 9110 lets a server ignore them) and several
    /// ranges, overlapping or not (answered whole rather than as multipart): 200 and all.
    static let ignored = [
        "bytes=5-2", "bytes=", "bytes=x", "bytes=--1", "bytes=1-2-3", "bytes=-1-2", "bytes=+1-2", "bytes=0x1-2",
        "items=0-1", "bytes 0-1", "bytes = 0-1", "bytes=\u{663}-\u{664}", "bytes=0-0,\u{301}", "=0-1", "",
        "bytes=0-1,4-5", "bytes=0-5,3-9", "bytes=0-0,0-0", "bytes=0-0,-1",
    ]

    @Test(arguments: DigitsApp.paths)
    func malformedOrSeveralRangesGetTheWhole(path: String) async throws {
        let app = try DigitsApp()
        defer { app.folder.remove() }
        for range in Self.ignored {
            let response = try await app.client.get(path, headers: ["Range": range])
            #expect(response.status == .ok, "\(range.debugDescription)")
            #expect(response.text == DigitsApp.digits, "\(range.debugDescription)")
            #expect(response.headers.first(name: "Content-Range") == nil, "\(range.debugDescription)")
        }
        // Two Range fields are not one header: ignored too.
        var twoFields = HttpHeaders()
        twoFields.add(name: "Range", value: "bytes=0-0")
        twoFields.add(name: "Range", value: "bytes=1-1")
        #expect(try await app.client.get(path, headers: twoFields).status == .ok)
    }

    @Test(arguments: DigitsApp.paths)
    func headGetsTheWholesHeadersWithoutABody(path: String) async throws {
        let app = try DigitsApp()
        defer { app.folder.remove() }
        // Ranges are for GET only: HEAD describes the whole.
        for headers: HttpHeaders in [[:], ["Range": "bytes=0-0"]] {
            let response = try await app.client.head(path, headers: headers)
            #expect(response.status == .ok)
            #expect(response.body.isEmpty)
            #expect(response.headers.first(name: "Content-Length") == "10")
            #expect(response.headers.first(name: "Accept-Ranges") == "bytes")
            #expect(response.headers.first(name: "ETag") != nil)
        }
    }

    @Test(arguments: DigitsApp.paths)
    func ifNoneMatchAnswers304(path: String) async throws {
        let app = try DigitsApp()
        defer { app.folder.remove() }
        let (etag, _) = try await app.validators(path)
        for value in [etag, "W/\(etag)", "*", "\"other\", \(etag)"] {
            let response = try await app.client.get(path, headers: ["If-None-Match": value])
            #expect(response.status == .notModified, "\(value)")
            #expect(response.body.isEmpty, "\(value)")
            #expect(response.headers.first(name: "ETag") == etag, "\(value)")
            #expect(response.headers.first(name: "Content-Length") == nil, "\(value)")
        }
        #expect(try await app.client.get(path, headers: ["If-None-Match": "\"other\""]).status == .ok)
        // Preconditions come before the range.
        #expect(try await app.client.get(path, headers: ["If-None-Match": etag, "Range": "bytes=0-0"]).status == .notModified)
        #expect(try await app.client.head(path, headers: ["If-None-Match": etag]).status == .notModified)
    }

    @Test(arguments: DigitsApp.paths)
    func ifMatchIsAStrongComparison(path: String) async throws {
        let app = try DigitsApp()
        defer { app.folder.remove() }
        let (etag, _) = try await app.validators(path)
        #expect(try await app.client.get(path, headers: ["If-Match": etag]).status == .ok)
        #expect(try await app.client.get(path, headers: ["If-Match": "*"]).status == .ok)
        #expect(try await app.client.get(path, headers: ["If-Match": "\"other\""]).status == .preconditionFailed)
        #expect(try await app.client.get(path, headers: ["If-Match": "W/\(etag)"]).status == .preconditionFailed)
    }

    @Test(arguments: DigitsApp.paths)
    func ifRangeSendsThePartOnlyForTheSameContent(path: String) async throws {
        let app = try DigitsApp()
        defer { app.folder.remove() }
        let (etag, lastModified) = try await app.validators(path)
        let range = "bytes=0-0"
        #expect(try await app.client.get(path, headers: ["Range": range, "If-Range": etag]).text == "0")
        for stale in ["\"other\"", "W/\(etag)", "Thu, 01 Jan 1970 00:00:00 GMT", "garbage"] {
            let response = try await app.client.get(path, headers: ["Range": range, "If-Range": stale])
            #expect(response.status == .ok, "\(stale)")
            #expect(response.text == DigitsApp.digits, "\(stale)")
        }
        if let lastModified {
            #expect(try await app.client.get(path, headers: ["Range": range, "If-Range": lastModified]).status == .partialContent)
        }
    }

    @Test func filesHaveDatesAndDataDoesNot() async throws {
        let app = try DigitsApp()
        defer { app.folder.remove() }
        for path in ["/digits.txt", "/file"] {
            let modified = try #require(try await app.validators(path).lastModified)
            #expect(try await app.client.get(path, headers: ["If-Modified-Since": modified]).status == .notModified)
            #expect(try await app.client.get(path, headers: ["If-Unmodified-Since": "Thu, 01 Jan 1970 00:00:00 GMT"]).status == .preconditionFailed)
            #expect(try await app.client.get(path, headers: ["If-Unmodified-Since": modified]).status == .ok)
        }
        // Data has no date: date conditions are ignored (RFC 9110, 13.1.3 and 13.1.4).
        #expect(try await app.validators("/data").lastModified == nil)
        #expect(try await app.client.get("/data", headers: ["If-Modified-Since": "Fri, 31 Dec 9999 23:59:59 GMT"]).status == .ok)
        #expect(try await app.client.get("/data", headers: ["If-Unmodified-Since": "Thu, 01 Jan 1970 00:00:00 GMT"]).status == .ok)
    }

    @Test func anEmptyFileIsSentWholeWhateverTheRange() async throws {
        let app = try DigitsApp()
        defer { app.folder.remove() }
        for range in ["bytes=0-", "bytes=-1", "bytes=0-0"] {
            let response = try await app.client.get("/empty.txt", headers: ["Range": range])
            #expect(response.status == .ok, "\(range)")
            #expect(response.body.isEmpty)
            #expect(response.headers.first(name: "Content-Length") == "0")
        }
    }

    @Test func aPartOfALargeFileIsStreamedFromItsOffset() async throws {
        let folder = try TemporaryFolder(["public/big.bin": ""])
        defer { folder.remove() }
        var bytes = [UInt8](repeating: 0x61, count: 3 << 20)
        bytes[(2 << 20)..<(2 << 20) + 4] = [0x62, 0x63, 0x64, 0x65]
        try Data(bytes).write(to: URL(fileURLWithPath: folder.file("public/big.bin")))
        let app = testApp(publicFolder: folder.file("public"))
        app.get("/big") { request in try request.sendFile(folder.file("public/big.bin")) }
        for path in ["/big.bin", "/big"] {
            let range = "bytes=\(2 << 20)-\((2 << 20) + 3)"
            let response = try await app.respond(method: .GET, uri: path, headers: ["Range": range])
            guard case .file(let file) = response.body else {
                Issue.record("expected a file body, got \(response.body)")
                continue
            }
            #expect(file.offset == 2 << 20)
            #expect(file.length == 4)
            #expect(try await TestClient(app).get(path, headers: ["Range": range]).text == "bcde")
        }
    }
}
