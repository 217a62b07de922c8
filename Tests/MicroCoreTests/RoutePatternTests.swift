import MicroCore
import MicroTesting
import Testing

@Suite struct RoutePatternTests {
    @Test func literalPatternsMatchExactly() throws {
        let pattern = try RoutePattern("/about")
        #expect(pattern.match("/about") != nil)
        #expect(pattern.match("/about/") == nil)
        #expect(pattern.match("/About") == nil)
        #expect(pattern.match("/abou") == nil)
    }

    @Test func namedParametersCaptureOneSegment() throws {
        let pattern = try RoutePattern("/users/:name")
        #expect(pattern.match("/users/ann")?.parameters == ["name": "ann"])
        #expect(pattern.match("/users/ann/edit") == nil)
        #expect(pattern.match("/users/") == nil)
        #expect(pattern.match("/users/J%C3%BCrgen%20K")?.parameters == ["name": "Jürgen K"])
    }

    @Test func severalParametersAndBacktracking() throws {
        let pattern = try RoutePattern("/:file.:ext")
        #expect(pattern.match("/pony.jpg")?.parameters == ["file": "pony", "ext": "jpg"])
        #expect(pattern.match("/pony.tar.gz")?.parameters == ["file": "pony.tar", "ext": "gz"])
        #expect(pattern.match("/pony") == nil)
    }

    @Test func splatsMatchAcrossSlashes() throws {
        let pattern = try RoutePattern("/files/*")
        #expect(pattern.match("/files/a/b/c.txt")?.splat == ["a/b/c.txt"])
        #expect(pattern.match("/files/")?.splat == [""])
        #expect(pattern.match("/file") == nil)
        let two = try RoutePattern("/download/*.*")
        #expect(two.match("/download/path/to/file.xml")?.splat == ["path/to/file", "xml"])
    }

    @Test func optionalTrailingSlash() throws {
        let pattern = try RoutePattern("/signin/?")
        #expect(pattern.match("/signin") != nil)
        #expect(pattern.match("/signin/") != nil)
        #expect(pattern.match("/signin//") == nil)
        #expect(pattern.match("/signinx") == nil)
    }

    @Test func optionalParts() throws {
        let pattern = try RoutePattern("/posts.?:format?")
        #expect(pattern.match("/posts")?.parameters == [:])
        #expect(pattern.match("/posts.json")?.parameters == ["format": "json"])
        #expect(pattern.match("/postsxml")?.parameters == ["format": "xml"])
        #expect(pattern.match("/posts/json") == nil)
    }

    @Test func invalidPatternsAreRefusedWithAReason() {
        #expect(throws: RoutePatternError.self) { try RoutePattern("users") }
        #expect(throws: RoutePatternError.self) { try RoutePattern("/users/:") }
        #expect(throws: RoutePatternError.self) { try RoutePattern("/a??") }
    }
}

@Suite struct RoutePatternLimitsTests {
    @Test func aHostilePathCannotMakeMatchingSlow() throws {
        let pattern = try RoutePattern("/*/*/*/end")
        let path = "/" + String(repeating: "a/", count: 6000)
        // Without the step budget this would backtrack through ~10^11 states; with it the match
        // gives up after RoutePattern.stepBudget steps.
        #expect(pattern.match(path) == nil)
        #expect(pattern.match("/a/b/c/end")?.splat == ["a", "b", "c"])
    }
}
