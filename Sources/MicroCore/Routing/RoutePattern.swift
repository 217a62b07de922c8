/// A Sinatra-style route pattern, matched against a request's path.
///
/// - Literal text matches itself: `/about`.
/// - `:name` matches one or more characters other than `/` and captures them as a parameter.
/// - `*` (a splat) matches anything, slashes included, possibly nothing; captures go to `splat`.
/// - `?` after a character or a parameter makes it optional: `/signin/?` matches `/signin`
///   and `/signin/`; `/posts.?:format?` matches `/posts` and `/posts.json`.
///
/// Captures are percent-decoded; literal text is compared with the raw path.
public struct RoutePattern: Sendable, CustomStringConvertible {
    enum Token: Sendable, Equatable {
        case literal([UInt8])
        case optionalByte(UInt8)
        case parameter(name: String, optional: Bool)
        case splat
    }

    /// The pattern as written.
    public let description: String
    let tokens: [Token]
    /// Set when the pattern is plain text: matching is a comparison.
    private let exact: [UInt8]?
    /// Checked before the tokens: refuses most paths the pattern does not match, cheaply.
    let precheck: RoutePrecheck

    /// Compiles `pattern`. A pattern must start with `/` (or be `*`).
    public init(_ pattern: String) throws(RoutePatternError) {
        guard pattern.hasPrefix("/") || pattern.hasPrefix("*") else {
            throw RoutePatternError(pattern: pattern, reason: "a route pattern starts with '/'")
        }
        description = pattern
        var tokens: [Token] = []
        let bytes = Array(pattern.utf8)
        var literal: [UInt8] = []
        var index = 0
        func flush() {
            if !literal.isEmpty { tokens.append(.literal(literal)); literal = [] }
        }
        while index < bytes.count {
            let byte = bytes[index]
            let next = index + 1 < bytes.count ? bytes[index + 1] : nil
            switch byte {
            case UInt8(ascii: ":"):
                var end = index + 1
                while end < bytes.count, Self.isNameByte(bytes[end]) { end += 1 }
                guard end > index + 1 else {
                    throw RoutePatternError(pattern: pattern, reason: "':' at offset \(index) has no parameter name")
                }
                flush()
                let name = String(decoding: bytes[(index + 1)..<end], as: UTF8.self)
                let optional = end < bytes.count && bytes[end] == UInt8(ascii: "?")
                tokens.append(.parameter(name: name, optional: optional))
                index = optional ? end + 1 : end
                continue
            case UInt8(ascii: "*"):
                flush()
                tokens.append(.splat)
            case UInt8(ascii: "?"):
                throw RoutePatternError(pattern: pattern, reason: "'?' at offset \(index) follows nothing that can be optional")
            default:
                if next == UInt8(ascii: "?") {
                    flush()
                    tokens.append(.optionalByte(byte))
                    index += 2
                    continue
                }
                literal.append(byte)
            }
            index += 1
        }
        flush()
        self.tokens = tokens
        if tokens.count == 1, case .literal(let bytes) = tokens[0] { exact = bytes } else if tokens.isEmpty { exact = [] } else { exact = nil }
        precheck = RoutePrecheck(tokens)
    }

    /// What a successful match captured.
    public struct Match: Sendable, Equatable {
        /// Named parameters, in pattern order, percent-decoded.
        public var parameters: [String: String] = [:]
        /// Splat captures, in pattern order, percent-decoded.
        public var splat: [String] = []
    }

    /// Matches the whole of `path` (without its query string); nil when it does not match.
    public func match(_ path: String) -> Match? {
        var path = path
        return path.withUTF8 { match($0) }
    }

    /// Matches the whole of a path given by its bytes; `prechecked: false` skips the
    /// ``RoutePrecheck``, for the tests that hold the check to the plain matcher.
    func match(_ bytes: UnsafeBufferPointer<UInt8>, prechecked: Bool = true) -> Match? {
        if prechecked, !precheck.admits(bytes) { return nil }
        if let exact {
            return bytes.elementsEqual(exact) ? Match() : nil
        }
        var captures: [(token: Int, range: Range<Int>)] = []
        // Backtracking over several splats and parameters can take polynomial time on a
        // long hostile path; past this many steps the path simply does not match.
        var budget = Self.stepBudget
        guard matchTokens(0, bytes, 0, &captures, &budget) else { return nil }
        var match = Match()
        for capture in captures {
            let raw = Substring(decoding: UnsafeBufferPointer(rebasing: bytes[capture.range]), as: UTF8.self)
            let value = PercentEncoding.decode(raw) ?? String(raw)
            if case .parameter(let name, _) = tokens[capture.token] {
                match.parameters[name] = value
            } else {
                match.splat.append(value)
            }
        }
        return match
    }

    /// The most steps one match may take: far more than any real path needs.
    static let stepBudget = 50_000

    private func matchTokens(
        _ tokenIndex: Int, _ path: UnsafeBufferPointer<UInt8>, _ position: Int,
        _ captures: inout [(token: Int, range: Range<Int>)], _ budget: inout Int
    ) -> Bool {
        budget -= 1
        guard budget > 0 else { return false }
        guard tokenIndex < tokens.count else { return position == path.count }
        switch tokens[tokenIndex] {
        case .literal(let literal):
            guard path.count - position >= literal.count else { return false }
            for offset in 0..<literal.count where path[position + offset] != literal[offset] { return false }
            return matchTokens(tokenIndex + 1, path, position + literal.count, &captures, &budget)
        case .optionalByte(let byte):
            if position < path.count, path[position] == byte,
                matchTokens(tokenIndex + 1, path, position + 1, &captures, &budget)
            {
                return true
            }
            return matchTokens(tokenIndex + 1, path, position, &captures, &budget)
        case .parameter(_, let optional):
            // Greedy: the longest run without a slash first, then shorter ones.
            var end = position
            while end < path.count, path[end] != UInt8(ascii: "/") { end += 1 }
            let shortest = optional ? position : position + 1
            var length = end
            while length >= shortest {
                let saved = captures.count
                if length > position { captures.append((tokenIndex, position..<length)) }
                if matchTokens(tokenIndex + 1, path, length, &captures, &budget) { return true }
                captures.removeSubrange(saved...)
                length -= 1
            }
            return false
        case .splat:
            // Lazy, as Sinatra's `.*?`: the shortest capture that lets the rest match.
            for end in position...path.count {
                let saved = captures.count
                captures.append((tokenIndex, position..<end))
                if matchTokens(tokenIndex + 1, path, end, &captures, &budget) { return true }
                captures.removeSubrange(saved...)
            }
            return false
        }
    }

    private static func isNameByte(_ byte: UInt8) -> Bool {
        switch byte {
        case UInt8(ascii: "a")...UInt8(ascii: "z"), UInt8(ascii: "A")...UInt8(ascii: "Z"),
            UInt8(ascii: "0")...UInt8(ascii: "9"), UInt8(ascii: "_"):
            true
        default: false
        }
    }
}

extension RoutePattern {
    /// The named parameters of `match`, in the order the pattern names them.
    func orderedParameters(of match: Match) -> [(String, String)] {
        tokens.compactMap { token in
            guard case .parameter(let name, _) = token, let value = match.parameters[name] else { return nil }
            return (name, value)
        }
    }
}
