@testable import MicroCore
import MicroTestSupport
import MicroTesting
import Testing


/// The route index against the plain linear matcher: for every method and path, the routes a
/// request tries (the first wins, `pass()` moves to the next) are exactly those the linear
/// matcher finds, in the same order.
@Suite struct RouterIndexTests {
    /// Overlapping patterns of every shape RoutePattern knows, for several methods.
    static let table: [(HttpMethod, String)] = [
        (.GET, "/users/new"),
        (.GET, "/users/:name"),
        (.GET, "/users/*"),
        (.POST, "/users/:name"),
        (.GET, "*"),
        (.GET, "/"),
        (.GET, "/:page"),
        (.GET, "/signin/?"),
        (.GET, "/signin"),
        (.GET, "/posts.?:format?"),
        (.GET, "/posts"),
        (.GET, "/posts/:id"),
        (.GET, "/posts/:id/edit"),
        (.GET, "/posts/:id/*"),
        (.PUT, "/posts/:id"),
        (.DELETE, "/posts/*"),
        (.GET, "/files/*.*"),
        (.GET, "/files/?*"),
        (.GET, "/:file.:ext"),
        (.GET, "/a/b/c"),
        (.GET, "/a/b/:c"),
        (.GET, "/a/:b/c"),
        (.GET, "/a/b/c/?"),
        (.GET, "/a/b/?c"),
        (.GET, "/a//b"),
        (.GET, "/a/?/b"),
        (.GET, "/api/v?1/:x"),
        (.GET, "/caf%C3%A9"),
        (.GET, "/café"),
        (.GET, "/Users/new"),
        (.GET, "/users/new/"),
        (.GET, "/*/new"),
        (.GET, "/?x"),
        (.HEAD, "/users/new"),
        (.OPTIONS, "*"),
    ]

    static let paths = [
        "/", "", "*", "//", "/users", "/users/", "/users/new", "/users/new/", "/users/ann", "/users/ann/edit",
        "/Users/new", "/USERS/new", "/users/%6Eew", "/signin", "/signin/", "/signin//", "/signinx", "/posts",
        "/posts.json", "/postsxml", "/posts/", "/posts/7", "/posts/7/edit", "/posts/7/edit/", "/files/a/b.txt",
        "/files/", "/files", "/filesx", "/pony.jpg", "/pony.tar.gz", "/a/b/c", "/a/b/c/", "/a/b/d", "/a/x/c",
        "/a/bc", "/a/b/", "/a//b", "/a/b", "/ab", "/api/v1/x", "/api//x", "/api/1/x", "/caf%C3%A9", "/caf%c3%a9",
        "/café", "/cafe\u{301}", "/x", "x", "/x/new", "//new", "/ne%2Fw", "/users%2Fnew", "/?x",
    ]

    static func router(_ table: [(HttpMethod, String)], hashMask: UInt64 = .max) throws -> Router {
        var router = Router(hashMask: hashMask)
        for (method, pattern) in table {
            let route = Route(
                method: method, pattern: try RoutePattern(pattern), handler: { _ in Response() },
                site: SourceSite(file: "RouterIndexTests.swift", line: 0))
            router.add(route)
        }
        return router
    }

    static let methods: [HttpMethod] = [.GET, .HEAD, .POST, .PUT, .DELETE, .OPTIONS, .PATCH]

    @Test func theIndexTriesWhatTheLinearMatcherFindsInItsOrder() throws {
        let router = try Self.router(Self.table)
        var overlapping = 0
        for method in Self.methods {
            for path in Self.paths {
                let matches = router.matches(for: method, path: path)
                #expect(matches == router.linearMatches(for: method, path: path), "\(method.rawValue) \(path)")
                if matches.count > 1 { overlapping += 1 }
            }
        }
        // The table overlaps: many paths have several matches, whose order is what is checked.
        #expect(overlapping > 20)
    }

    @Test(arguments: [0, 1, 3] as [UInt64])
    func segmentsWhoseHashesCollideAreStillTried(hashMask: UInt64) throws {
        let router = try Self.router(Self.table, hashMask: hashMask)
        for method in Self.methods {
            for path in Self.paths {
                #expect(router.matches(for: method, path: path) == router.linearMatches(for: method, path: path), "\(method.rawValue) \(path)")
            }
        }
    }

    @Test func theOrderIsDefinitionOrderAcrossIndexedAndFallbackPatterns() throws {
        let router = try Self.router(Self.table)
        func patterns(_ method: HttpMethod, _ path: String) -> [String] {
            let get = Self.table.filter { $0.0 == (method == .HEAD ? .GET : method) }
            return router.matches(for: method, path: path).map { get[$0].1 }
        }
        #expect(patterns(.GET, "/users/new") == ["/users/new", "/users/:name", "/users/*", "*", "/*/new"])
        #expect(patterns(.HEAD, "/users/new") == ["/users/new", "/users/:name", "/users/*", "*", "/*/new"])
        #expect(patterns(.GET, "/signin/") == ["*", "/signin/?"])
        #expect(patterns(.GET, "/signin") == ["*", "/:page", "/signin/?", "/signin"])
        #expect(patterns(.GET, "/posts") == ["*", "/:page", "/posts.?:format?", "/posts"])
        #expect(patterns(.GET, "/posts/7/edit") == ["*", "/posts/:id/edit", "/posts/:id/*"])
        #expect(patterns(.GET, "/a/b") == ["*", "/a/?/b"])
        #expect(patterns(.GET, "/a//b") == ["*", "/a//b", "/a/?/b"])
        #expect(patterns(.POST, "/users/ann") == ["/users/:name"])
        #expect(patterns(.POST, "/users/ann/x") == [])
        #expect(patterns(.PATCH, "/users/new") == [])
    }

    @Test func randomPatternSetsAgreeWithTheLinearMatcher() throws {
        var random = Generator(seed: 25)
        var matched = 0
        var overlapping = 0
        for _ in 0..<300 {
            var table: [(HttpMethod, String)] = []
            while table.count < 12 {
                let pattern = Self.randomPattern(&random)
                guard (try? RoutePattern(pattern)) != nil else { continue }
                table.append(([HttpMethod.GET, .GET, .GET, .POST][Int(random.next() % 4)], pattern))
            }
            let router = try Self.router(table)
            // Paths made from the patterns themselves (so that many match), and random ones.
            var paths = table.map { Self.example(of: $0.1, &random) }
            for _ in 0..<20 { paths.append(Self.randomPath(&random)) }
            for path in paths {
                for method in [HttpMethod.GET, .HEAD, .POST] {
                    let matches = router.matches(for: method, path: path)
                    #expect(matches == router.linearMatches(for: method, path: path), "\(method.rawValue) \(path) in \(table.map(\.1))")
                    matched += matches.count
                    if matches.count > 1 { overlapping += 1 }
                }
            }
        }
        #expect(matched > 3000)
        #expect(overlapping > 300)
    }

    @Test func patternsAreFiledUnderTheSegmentsTheyFix() throws {
        func segments(_ pattern: String) throws -> [String] {
            RouteIndex.fixedSegments(of: try RoutePattern(pattern)).map { String(decoding: $0, as: UTF8.self) }
        }
        #expect(try segments("/users/:id") == ["users"])
        #expect(try segments("/r7/items/:id") == ["r7", "items"])
        #expect(try segments("/hello") == ["hello"])
        #expect(try segments("/hello/") == ["hello", ""])
        #expect(try segments("/") == [""])
        #expect(try segments("/signin/?") == ["signin"])
        #expect(try segments("/a/?/b") == [])
        #expect(try segments("/a/b/?c") == ["a"])
        #expect(try segments("/posts.?:format?") == [])
        #expect(try segments("/files/*") == ["files"])
        #expect(try segments("/files*") == [])
        #expect(try segments("/:page") == [])
        #expect(try segments("*") == [])
        #expect(try segments("/?x") == [])
        #expect(try segments("/a?") == [])
    }

    // MARK: Random patterns and paths

    /// A small, seedable generator, so a failure names a case that comes back.
    struct Generator: RandomNumberGenerator {
        private var state: UInt64
        init(seed: UInt64) { state = seed }
        mutating func next() -> UInt64 {
            state &+= 0x9E37_79B9_7F4A_7C15
            var z = state
            z = (z ^ (z >> 30)) &* 0xBF58_476D_1CE4_E5B9
            z = (z ^ (z >> 27)) &* 0x94D0_49BB_1331_11EB
            return z ^ (z >> 31)
        }
    }

    static let patternPieces = ["/", "/", "/", "a", "b", "ab", ".", ":x", ":y", ":z?", "*", "?", "%41", "A"]
    static let pathPieces = ["/", "/", "/", "a", "b", "ab", ".", "v", "%41", "A", "%2F", ""]

    static func randomPattern(_ random: inout Generator) -> String {
        var pattern = random.next() % 8 == 0 ? "*" : "/"
        for _ in 0..<Int(random.next() % 6) {
            pattern += patternPieces[Int(random.next() % UInt64(patternPieces.count))]
        }
        return pattern
    }

    static func randomPath(_ random: inout Generator) -> String {
        var path = random.next() % 16 == 0 ? "" : "/"
        for _ in 0..<Int(random.next() % 7) {
            path += pathPieces[Int(random.next() % UInt64(pathPieces.count))]
        }
        return path
    }

    /// A path `pattern` may match: parameters filled, splats empty or not, optional characters
    /// present or not.
    static func example(of pattern: String, _ random: inout Generator) -> String {
        var path = ""
        let characters = Array(pattern)
        var index = 0
        while index < characters.count {
            let character = characters[index]
            if character == ":" {
                index += 1
                while index < characters.count, characters[index].isLetter { index += 1 }
                if index < characters.count, characters[index] == "?" { index += 1 }
                path += ["v", "a", "ab", "", "x.y"][Int(random.next() % 5)]
                continue
            }
            if character == "*" {
                path += ["", "a/b", "/", "v"][Int(random.next() % 4)]
            } else if index + 1 < characters.count, characters[index + 1] == "?" {
                if random.next() % 2 == 0 { path.append(character) }
                index += 1
            } else {
                path.append(character)
            }
            index += 1
        }
        return path
    }
}

/// Through the app: the order `pass()` walks, HEAD and the 404s, among many other routes.
@Suite struct RouterDispatchTests {
    @Test func passWalksTheMatchesInDefinitionOrderAmongManyRoutes() async throws {
        let app = testApp()
        let log = Locked<[String]>([])
        for index in 0..<200 {
            app.get("/r\(index)/items/:id") { _ in "r\(index)" }
            app.post("/r\(index)/items") { _ in "r\(index)" }
        }
        for pattern in ["*", "/users/new", "/:page/new", "/users/:name", "/users/new/?", "/users/*", "/u*"] {
            app.get(pattern) { request in
                log.withLock { $0.append(pattern) }
                try request.pass()
            }
        }
        app.get("/users/:name") { request in "user \(request.params["name"] ?? "")" }
        let client = TestClient(app)

        let passed = try await client.get("/users/new")
        #expect(passed.text == "user new")
        #expect(log.withLock { $0 } == ["*", "/users/new", "/:page/new", "/users/:name", "/users/new/?", "/users/*", "/u*"])

        log.withLock { $0 = [] }
        let head = try await client.head("/users/new")
        #expect(head.status == .ok)
        #expect(head.body.isEmpty)
        #expect(log.withLock { $0 } == ["*", "/users/new", "/:page/new", "/users/:name", "/users/new/?", "/users/*", "/u*"])

        log.withLock { $0 = [] }
        #expect(try await client.get("/users/new/x").status == .notFound)
        #expect(log.withLock { $0 } == ["*", "/users/*", "/u*"])

        #expect(try await client.get("/r150/items/7").text == "r150")
        #expect(try await client.request(.PUT, "/r150/items/7").status == .notFound)
        #expect(try await client.request(.POST, "/r150/items/7").status == .notFound)
        #expect(try await client.request(.POST, "/r150/items").text == "r150")
    }
}
