import Synchronization

/// The id that follows one request through the log (`request_id`) and comes back in its
/// answer's `X-Request-Id`: a trusted proxy's, so that its log and the app's name a request
/// alike, else one made here.
enum RequestId {
    /// The longest id taken from a proxy; a longer one is replaced, not cut.
    static let maxLength = 128

    /// Six random hex digits per process, so that instances behind one proxy make different
    /// ids, then a count: unique within the process.
    private static let prefix = UInt32.random(in: 0x10_0000...0xFF_FFFF)
    private static let count = Atomic<UInt64>(0)

    /// `X-Request-Id` from a trusted proxy (`peer` one of `proxies`) when it is a plain token,
    /// else a new id.
    static func of(peer: String?, headers: HttpHeaders, proxies: TrustedProxies) -> String {
        if proxies.trusts(peer), let given = headers.first(name: "X-Request-Id"), isAcceptable(given) {
            return given
        }
        return next()
    }

    /// A new id: the prefix, `-`, and the count in hex. Written byte by byte into the string,
    /// short enough to be kept inline: every answer carries one, so it is made without the
    /// strings that formatting each part and joining them would make.
    static func next() -> String {
        let number = count.wrappingAdd(1, ordering: .relaxed).newValue
        let digits = max(1, (64 - number.leadingZeroBitCount + 3) / 4)
        return String(unsafeUninitializedCapacity: 7 + digits) { bytes in
            for index in 0..<6 { bytes[index] = hex(UInt64(prefix) >> (20 - 4 * index)) }
            bytes[6] = UInt8(ascii: "-")
            for index in 0..<digits { bytes[7 + index] = hex(number >> (4 * (digits - 1 - index))) }
            return 7 + digits
        }
    }

    private static func hex(_ value: UInt64) -> UInt8 {
        let digit = UInt8(truncatingIfNeeded: value & 0xF)
        return digit < 10 ? UInt8(ascii: "0") + digit : UInt8(ascii: "a") + digit - 10
    }

    /// Whether `text` is 1 to ``maxLength`` letters, digits and `-._:+/=@`: what proxies and
    /// tracers make (nginx's hex `$request_id`, UUIDs, `Root=1-...`), and nothing that could
    /// break a header or a log line.
    static func isAcceptable(_ text: String) -> Bool {
        let bytes = text.utf8
        guard !bytes.isEmpty, bytes.count <= maxLength else { return false }
        return bytes.allSatisfy { byte in
            switch byte {
            case UInt8(ascii: "a")...UInt8(ascii: "z"), UInt8(ascii: "A")...UInt8(ascii: "Z"), UInt8(ascii: "0")...UInt8(ascii: "9"):
                true
            case UInt8(ascii: "-"), UInt8(ascii: "."), UInt8(ascii: "_"), UInt8(ascii: ":"), UInt8(ascii: "+"),
                UInt8(ascii: "/"), UInt8(ascii: "="), UInt8(ascii: "@"):
                true
            default: false
            }
        }
    }
}
