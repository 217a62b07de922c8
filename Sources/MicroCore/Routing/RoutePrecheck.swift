/// What a path must have for a pattern to match it, in a few plain numbers: its length
/// within bounds, and its last bytes those of the pattern's closing literal text.
///
/// A request checks it before the pattern's own matching, for each route the index offers:
/// most patterns that do not match the path (`/:section/r7` for `/hello`, `/about` for
/// `/hello`) are refused here, without backtracking and without touching the route, whose
/// reference-counted parts cost more to reach than the check itself.
struct RoutePrecheck: Sendable {
    /// The fewest bytes a matching path has.
    let minimumLength: Int
    /// The most; `Int.max` when the pattern has a parameter or a splat.
    let maximumLength: Int
    /// Up to the last 8 bytes of the literal text the pattern ends with, packed by
    /// ``pack(_:)``, and how many there are (0 when it ends otherwise).
    let tail: UInt64
    let tailLength: Int

    init(_ tokens: [RoutePattern.Token]) {
        var minimum = 0
        var maximum = 0
        for token in tokens {
            switch token {
            case .literal(let bytes):
                minimum += bytes.count
                maximum = maximum == .max ? .max : maximum + bytes.count
            case .optionalByte:
                maximum = maximum == .max ? .max : maximum + 1
            case .parameter(_, let optional):
                minimum += optional ? 0 : 1
                maximum = .max
            case .splat:
                maximum = .max
            }
        }
        minimumLength = minimum
        maximumLength = maximum
        if case .literal(let bytes) = tokens.last {
            tailLength = min(bytes.count, 8)
            tail = bytes.withUnsafeBufferPointer { Self.pack($0, last: min(bytes.count, 8)) }
        } else {
            tailLength = 0
            tail = 0
        }
    }

    /// Whether a path of these bytes may match the pattern; false only when it cannot.
    @inline(__always)
    func admits(_ path: UnsafeBufferPointer<UInt8>) -> Bool {
        path.count >= minimumLength && path.count <= maximumLength && Self.pack(path, last: tailLength) == tail
    }

    /// The last `count` (at most 8, at most `bytes.count`) bytes, one per byte of a UInt64.
    @inline(__always)
    static func pack(_ bytes: UnsafeBufferPointer<UInt8>, last count: Int) -> UInt64 {
        var packed: UInt64 = 0
        for index in (bytes.count - count)..<bytes.count {
            packed = packed << 8 | UInt64(bytes[index])
        }
        return packed
    }
}
