/// One method's routes, indexed by the literal path segments their patterns start with, so
/// that a request tries only the routes that can match its path, in definition order.
///
/// A pattern is filed under the segments every path it matches must begin with: `/users/:id`
/// under `users`, `/r7/items/:id` under `r7` then `items`, `/signin/?` under `signin`, `/`
/// under the empty segment. A pattern that starts with anything else (`/:slug`, `*`,
/// `/posts.?:format?`, `/a?`) stays at the root, which every path reaches. A path walks down
/// by its own segments (split at `/`, raw bytes, no decoding: literal text is compared with
/// the raw path, byte for byte), and its candidates are the routes of every node it passes,
/// merged by definition index. Filing a pattern higher than it could be only adds candidates,
/// which the pattern then refuses; a pattern is never filed deeper than the segments it
/// fixes, so no route that could match is skipped.
struct RouteIndex: Sendable {
    /// The routes in definition order; the index holds their positions here.
    private(set) var routes: [Route] = []
    /// Each route's ``RoutePattern/precheck``, apart: plain numbers, read without touching
    /// the route.
    private var prechecks: [RoutePrecheck] = []
    /// The trie; `nodes[0]` is the root.
    private var nodes: [Node] = [Node(segment: [])]
    /// The bits of a segment's hash the index keys on: all of them, but a test keeps a few, so
    /// that segments collide.
    private let hashMask: UInt64

    init(hashMask: UInt64 = .max) {
        self.hashMask = hashMask
    }

    private struct Node: Sendable {
        /// The segment that leads here from the parent, to check a hash hit.
        let segment: [UInt8]
        /// Positions in `routes` of the routes filed here, ascending.
        var routes: [Int] = []
        /// Children by the hash of their segment (see ``RouteIndex/hash(_:)``).
        var children: [UInt64: Int] = [:]
    }

    mutating func add(_ route: Route) {
        let position = routes.count
        routes.append(route)
        prechecks.append(route.pattern.precheck)
        var node = 0
        for segment in Self.fixedSegments(of: route.pattern) {
            let key = Self.hash(segment[...]) & hashMask
            if let child = nodes[node].children[key] {
                // Another segment with the same hash: the route stays at this node, where every
                // path that reaches it finds it.
                guard nodes[child].segment == segment else { break }
                node = child
            } else {
                nodes.append(Node(segment: segment))
                nodes[node].children[key] = nodes.count - 1
                node = nodes.count - 1
            }
        }
        nodes[node].routes.append(position)
    }

    /// The positions of the routes whose pattern can match `path`, in definition order.
    func candidates(for path: String) -> RouteCandidates {
        var candidates = RouteCandidates()
        candidates.add(nodes[0].routes[...])
        var path = path
        path.withUTF8 { bytes in
            guard bytes.first == UInt8(ascii: "/") else { return }
            var node = 0
            var start = 1
            while true {
                var end = start
                while end < bytes.count, bytes[end] != UInt8(ascii: "/") { end += 1 }
                let segment = bytes[start..<end]
                guard let child = nodes[node].children[Self.hash(segment) & hashMask],
                    nodes[child].segment.elementsEqual(segment)
                else { return }
                node = child
                candidates.add(nodes[node].routes[...])
                guard end < bytes.count else { return }
                start = end + 1
            }
        }
        return candidates
    }

    /// The position of the next route among `candidates` whose pattern matches `path`, and
    /// what it captured; nil when none is left. Synchronous and through the routes' storage, so
    /// that a candidate that does not match costs its pattern's check and nothing else (no
    /// copy of its route, no `withUTF8` of the path each).
    func nextMatch(_ candidates: inout RouteCandidates, in path: String) -> (position: Int, match: RoutePattern.Match)? {
        var path = path
        return path.withUTF8 { bytes in
            prechecks.withUnsafeBufferPointer { prechecks in
                routes.withUnsafeBufferPointer { routes in
                    while let position = candidates.next() {
                        // The precheck here, where it costs no copy; the match then skips it.
                        guard prechecks[position].admits(bytes) else { continue }
                        if let match = routes[position].pattern.match(bytes, prechecked: false) { return (position, match) }
                    }
                    return nil
                }
            }
        }
    }

    /// The routes whose pattern matches `path`, tried one by one in definition order by the
    /// plain matcher (no precheck): what the index and the prechecks must agree with.
    func linearMatches(for path: String) -> [Int] {
        var path = path
        return path.withUTF8 { bytes in
            routes.indices.filter { routes[$0].pattern.match(bytes, prechecked: false) != nil }
        }
    }

    /// The segments every path `pattern` matches begins with: those its leading literal text
    /// closes with a `/`, and the last one when nothing but the end of the path (or an
    /// optional `/` there) can follow it.
    static func fixedSegments(of pattern: RoutePattern) -> [[UInt8]] {
        guard case .literal(let prefix) = pattern.tokens.first, prefix.first == UInt8(ascii: "/") else { return [] }
        var segments = prefix.dropFirst().split(separator: UInt8(ascii: "/"), omittingEmptySubsequences: false).map(Array.init)
        let rest = pattern.tokens.dropFirst()
        let lastIsWhole = rest.isEmpty || (rest.count == 1 && rest.first == .optionalByte(UInt8(ascii: "/")))
        if !lastIsWhole { segments.removeLast() }
        return segments
    }

    /// FNV-1a over a segment's bytes: a key for the children's dictionary that a lookup makes
    /// without copying the segment.
    static func hash<Bytes: Collection<UInt8>>(_ bytes: Bytes) -> UInt64 {
        var hash: UInt64 = 0xcbf2_9ce4_8422_2325
        for byte in bytes {
            hash = (hash ^ UInt64(byte)) &* 0x100_0000_01b3
        }
        return hash
    }
}
