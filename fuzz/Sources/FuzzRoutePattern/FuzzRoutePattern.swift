// Route patterns: compiling one from the input's first line, matching the rest as a path.
//
// Checks: no crash; a bad pattern is a thrown error; matching ends (the step budget; a hang
// is a libFuzzer timeout); every captured name is one the pattern declares; a path made
// from the pattern itself (each parameter filled with `v`, each splat empty, each optional
// character present) matches it, when the pattern is small enough for the budget; the router's
// index finds the pattern for the path exactly when the pattern matches it (FuzzRouter checks
// sets of patterns).
@_spi(Fuzzing) import Micro
import FuzzSupport

@_cdecl("LLVMFuzzerTestOneInput")
public func fuzzRoutePattern(_ data: UnsafePointer<UInt8>?, _ count: Int) -> CInt {
    let (head, rest) = split(bytes(data, count), at: UInt8(ascii: "\n"))
    let source = text(head)
    let pattern: RoutePattern
    do {
        pattern = try RoutePattern(source)
    } catch {
        require(error.pattern == source && !error.reason.isEmpty, "an error without its pattern or reason")
        return 0
    }
    require(pattern.description == source, "the pattern's description is not its source")

    let found = FuzzingEntryPoints.routeMatches([(.GET, pattern)], method: .GET, path: text(rest))
    require(found.indexed == found.linear, "the index tries \(found.indexed) for \(text(rest)), the linear matcher \(found.linear)")

    if let match = pattern.match(text(rest)) {
        for name in match.parameters.keys {
            require(occurs(Array((":" + name).utf8), in: head), "captured '\(name)', which \(source) does not declare")
        }
    }

    if let (path, branches, tokens) = example(Array(source.utf8)), branches <= 2, tokens <= 10, path.count <= 64 {
        let match = pattern.match(text(path))
        require(match != nil, "\(source) does not match its own example \(text(path))")
    }
    return 0
}

/// A path `pattern` describes, with how many tokens can branch (parameters, splats, optional
/// characters) and how many tokens there are. Nil when `pattern` does not compile.
func example(_ pattern: [UInt8]) -> (path: [UInt8], branches: Int, tokens: Int)? {
    var path: [UInt8] = []
    var branches = 0
    var tokens = 0
    var inLiteral = false
    var index = 0
    func isNameByte(_ byte: UInt8) -> Bool {
        (UInt8(ascii: "a")...UInt8(ascii: "z")).contains(byte) || (UInt8(ascii: "A")...UInt8(ascii: "Z")).contains(byte)
            || (UInt8(ascii: "0")...UInt8(ascii: "9")).contains(byte) || byte == UInt8(ascii: "_")
    }
    while index < pattern.count {
        let byte = pattern[index]
        let next = index + 1 < pattern.count ? pattern[index + 1] : nil
        switch byte {
        case UInt8(ascii: ":"):
            var end = index + 1
            while end < pattern.count, isNameByte(pattern[end]) { end += 1 }
            guard end > index + 1 else { return nil }
            path.append(UInt8(ascii: "v"))
            branches += 1
            tokens += 1
            inLiteral = false
            index = end < pattern.count && pattern[end] == UInt8(ascii: "?") ? end + 1 : end
            continue
        case UInt8(ascii: "*"):
            branches += 1
            tokens += 1
            inLiteral = false
        case UInt8(ascii: "?"):
            return nil
        default:
            if next == UInt8(ascii: "?") {
                path.append(byte)
                branches += 1
                tokens += 1
                inLiteral = false
                index += 2
                continue
            }
            path.append(byte)
            if !inLiteral { tokens += 1 }
            inLiteral = true
        }
        index += 1
    }
    return (path, branches, tokens)
}

/// The entry point a debug build of the package's tests asks for (see `fuzzerMain`).
@_cdecl("FuzzRoutePattern_main")
public func fuzzRoutePatternMain(_ argc: CInt, _ argv: UnsafeMutablePointer<UnsafeMutablePointer<CChar>?>?) -> CInt {
    fuzzerMain(argc, argv)
}
