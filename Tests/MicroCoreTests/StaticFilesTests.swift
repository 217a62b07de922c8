import Foundation
import MicroCore
import MicroTestSupport
import MicroTesting
import Testing

/// A temporary site: `root/public` with files, and a secret next to it.
private struct Site {
    let root: URL
    var publicFolder: String { root.appendingPathComponent("public").path }

    init() throws {
        root = FileManager.default.temporaryDirectory.appendingPathComponent("micro-static-\(UUID().uuidString)")
        let manager = FileManager.default
        try manager.createDirectory(at: root.appendingPathComponent("public/css"), withIntermediateDirectories: true)
        try "body { color: red; }\n".write(to: root.appendingPathComponent("public/css/app.css"), atomically: true, encoding: .utf8)
        try "hello\n".write(to: root.appendingPathComponent("public/hello.txt"), atomically: true, encoding: .utf8)
        try "TOP SECRET\n".write(to: root.appendingPathComponent("secret.txt"), atomically: true, encoding: .utf8)
        try manager.createSymbolicLink(atPath: root.appendingPathComponent("public/leak.txt").path,
            withDestinationPath: root.appendingPathComponent("secret.txt").path)
        try manager.createSymbolicLink(atPath: root.appendingPathComponent("public/inside.txt").path,
            withDestinationPath: root.appendingPathComponent("public/hello.txt").path)
    }

    func remove() { try? FileManager.default.removeItem(at: root) }
}

@Suite struct StaticFilesTests {
    @Test func servesFilesWithTypeAndCachingHeaders() async throws {
        let site = try Site()
        defer { site.remove() }
        let client = TestClient(testApp(publicFolder: site.publicFolder))
        let css = try await client.get("/css/app.css")
        #expect(css.status == .ok)
        #expect(css.text == "body { color: red; }\n")
        #expect(css.contentType == "text/css; charset=utf-8")
        #expect(css.headers.first(name: "Content-Length") == "21")
        #expect(css.headers.first(name: "Cache-Control") == "no-cache")
        #expect(css.headers.first(name: "ETag")?.hasPrefix("\"") == true)
        #expect(css.headers.first(name: "Last-Modified")?.hasSuffix(" GMT") == true)
        let text = try await client.get("/hello.txt")
        #expect(text.contentType == "text/plain; charset=utf-8")
        let head = try await client.head("/hello.txt")
        #expect(head.body.isEmpty)
        #expect(head.headers.first(name: "Content-Length") == "6")
    }

    @Test func answers304ToConditionalRequests() async throws {
        let site = try Site()
        defer { site.remove() }
        let client = TestClient(testApp(publicFolder: site.publicFolder))
        let first = try await client.get("/css/app.css")
        let etag = try #require(first.headers.first(name: "ETag"))
        let modified = try #require(first.headers.first(name: "Last-Modified"))

        let byTag = try await client.get("/css/app.css", headers: ["If-None-Match": etag])
        #expect(byTag.status == .notModified)
        #expect(byTag.body.isEmpty)
        #expect(byTag.headers.first(name: "ETag") == etag)
        #expect(try await client.get("/css/app.css", headers: ["If-None-Match": "W/\(etag)"]).status == .notModified)
        #expect(try await client.get("/css/app.css", headers: ["If-None-Match": "\"other\""]).status == .ok)

        #expect(try await client.get("/css/app.css", headers: ["If-Modified-Since": modified]).status == .notModified)
        #expect(try await client.get("/css/app.css", headers: ["If-Modified-Since": "Thu, 01 Jan 1970 00:00:00 GMT"]).status == .ok)
        // A changed file gets a new tag.
        try "body { color: blue; }\n".write(toFile: site.publicFolder + "/css/app.css", atomically: true, encoding: .utf8)
        let changed = try await client.get("/css/app.css", headers: ["If-None-Match": etag])
        #expect(changed.status == .ok)
        #expect(changed.text == "body { color: blue; }\n")
    }

    @Test func neverServesAPathOutsideThePublicFolder() async throws {
        let site = try Site()
        defer { site.remove() }
        let app = testApp(publicFolder: site.publicFolder)
        let client = TestClient(app)
        let attempts = [
            "/../secret.txt", "/css/../../secret.txt", "/%2e%2e/secret.txt", "/%2E%2E/secret.txt",
            "/css/%2e%2e/%2e%2e/secret.txt", "/..%2fsecret.txt", "/..%2Fsecret.txt", "/..%5csecret.txt",
            "/..\\secret.txt", "/leak.txt", "/%00/secret.txt", "/css/./app.css", "//secret.txt",
        ]
        for attempt in attempts {
            let response = try await client.get(attempt)
            #expect(response.status == .notFound || response.status == .badRequest, "\(attempt) -> \(response.status)")
            #expect(!response.text.contains("TOP SECRET"), "\(attempt) leaked the file")
        }
        // A symlink that stays inside the folder is fine.
        #expect(try await client.get("/inside.txt").text == "hello\n")
        // Directories are not listed.
        #expect(try await client.get("/css").status == .notFound)
    }

    @Test func routesAnswerWhatTheFolderDoesNotHave() async throws {
        let site = try Site()
        defer { site.remove() }
        let app = testApp(publicFolder: site.publicFolder)
        app.get("/css/*") { request in "route for \(request.params.splat[0])" }
        let client = TestClient(app)
        #expect(try await client.get("/css/app.css").text == "body { color: red; }\n")
        #expect(try await client.get("/css/other.css").text == "route for other.css")
        #expect(try await client.post("/hello.txt", form: [:]).status == .notFound)
    }

    @Test func largeFilesAreStreamedFromDisk() async throws {
        let site = try Site()
        defer { site.remove() }
        let big = Data(repeating: 0x61, count: 3 << 20)
        try big.write(to: URL(fileURLWithPath: site.publicFolder + "/big.bin"))
        let app = testApp(publicFolder: site.publicFolder)
        let response = try await app.respond(method: .GET, uri: "/big.bin")
        guard case .file(let file) = response.body else {
            Issue.record("expected a file body, got \(response.body)")
            return
        }
        #expect(file.length == 3 << 20)
        #expect(response.headers.first(name: "Content-Length") == String(3 << 20))
        #expect(response.contentType == "application/octet-stream")
    }
}

@Suite struct StaticFilesHardeningTests {
    @Test func hostileConditionalHeadersNeverCrash() async throws {
        let folder = try TemporaryFolder(["public/a.txt": "a\n"])
        defer { folder.remove() }
        let client = TestClient(testApp(publicFolder: folder.file("public")))
        for value in [
            "Sun, 06 Nov 1994 99999999999:00:00 GMT", "Sun, 06 Nov 1994 08:49:37 GMT", "Sun, 06 Nov 1994 -1:00:00 GMT",
            "Sun, 99 Nov 1994 08:49:37 GMT", "garbage", "", "Sun, 06 Nov 99999999999999999999 08:49:37 GMT",
        ] {
            let response = try await client.get("/a.txt", headers: ["If-Modified-Since": value])
            #expect(response.status == .ok || response.status == .notModified, "\(value)")
        }
    }

    @Test func hiddenFilesAreNotServed() async throws {
        let folder = try TemporaryFolder(["public/.env": "SECRET=1\n", "public/.git/config": "x\n", "public/ok.txt": "ok\n"])
        defer { folder.remove() }
        let client = TestClient(testApp(publicFolder: folder.file("public")))
        #expect(try await client.get("/.env").status == .notFound)
        #expect(try await client.get("/.git/config").status == .notFound)
        #expect(try await client.get("/%2eenv").status == .notFound)
        #expect(try await client.get("/ok.txt").text == "ok\n")
    }

    @Test func productionFindsFilesThroughTheTopLevelNames() async throws {
        let folder = try TemporaryFolder(["public/css/a.css": "a{}\n"])
        defer { folder.remove() }
        let app = testApp(publicFolder: folder.file("public"), environment: .production)
        app.get("/hello") { _ in "hello" }
        let client = TestClient(app)
        #expect(try await client.get("/css/a.css").text == "a{}\n")
        #expect(try await client.get("/hello").text == "hello")
        #expect(try await client.get("/%2e%2e/x").status == .notFound)
    }
}
