// The route index against the plain linear matcher: a set of routes and a request from the
// input, and the routes the request tries (first match wins, `pass()` moves to the next) must
// be the same, in the same order, whichever way they are found.
//
// Input: lines. The first is the request's path, the others the routes, in definition order.
// A line may start with a method letter (G GET, H HEAD, P POST, U PUT, D DELETE); without one
// it is GET. Lines that are not a valid pattern are skipped. The request is tried as GET, as
// HEAD (which GET's routes answer) and as its own method.
@_spi(Fuzzing) import Micro
import FuzzSupport

@_cdecl("LLVMFuzzerTestOneInput")
public func fuzzRouter(_ data: UnsafePointer<UInt8>?, _ count: Int) -> CInt {
    let lines = bytes(data, count).split(separator: UInt8(ascii: "\n"), omittingEmptySubsequences: false)
    guard let first = lines.first else { return 0 }
    let (requestMethod, path) = method(Array(first))
    var routes: [(method: HttpMethod, pattern: RoutePattern)] = []
    // Enough routes for several levels of the index and its fallback list; more only slows
    // the fuzzer down.
    for line in lines.dropFirst().prefix(64) {
        let (routeMethod, source) = method(Array(line))
        guard let pattern = try? RoutePattern(text(source)) else { continue }
        routes.append((routeMethod, pattern))
    }
    for tried in [HttpMethod.GET, .HEAD, requestMethod] {
        let found = FuzzingEntryPoints.routeMatches(routes, method: tried, path: text(path))
        require(
            found.indexed == found.linear,
            "\(tried.rawValue) \(text(path)): the index tries \(found.indexed), the linear matcher \(found.linear), for \(routes.map(\.pattern))")
    }
    return 0
}

/// The method a line's first byte names, and the rest; GET and the whole line without one.
func method(_ line: [UInt8]) -> (HttpMethod, [UInt8]) {
    let methods: [UInt8: HttpMethod] = [
        UInt8(ascii: "G"): .GET, UInt8(ascii: "H"): .HEAD, UInt8(ascii: "P"): .POST, UInt8(ascii: "U"): .PUT,
        UInt8(ascii: "D"): .DELETE,
    ]
    guard let first = line.first, let method = methods[first] else { return (.GET, line) }
    return (method, Array(line.dropFirst()))
}

/// The entry point a debug build of the package's tests asks for (see `fuzzerMain`).
@_cdecl("FuzzRouter_main")
public func fuzzRouterMain(_ argc: CInt, _ argv: UnsafeMutablePointer<UnsafeMutablePointer<CChar>?>?) -> CInt {
    fuzzerMain(argc, argv)
}
