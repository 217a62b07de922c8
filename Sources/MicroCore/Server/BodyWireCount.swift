/// The bytes a request body takes on the wire, counted per read of the connection, so that a
/// chunked body's framing cannot make the server read more than a body at the limit would.
///
/// NIO's decoder hands over a chunked body's data and nothing else: a chunk's size line, its
/// extensions (`1;anything\r\n`) and the trailer fields are read and dropped out of sight, with
/// no limit of their own. A client could thus send gigabytes around a one-byte body until the
/// body timeout. Rather than parse the framing a second time (and risk reading it differently
/// from NIO), this counts the raw bytes of each read that begins and ends within one request's
/// body, as ``HttpHandler`` sees them before and after the decoder:
/// - all of them toward the body limit, plus an allowance for honest framing (an eighth of the
///   limit, at least 64 KiB): past it the body is too large (413), as a body over the limit is;
/// - and the bytes of consecutive reads that carried no body data toward a run limit (the
///   header limit): past it one chunk line or the trailer section is too long (400).
///
/// The reads a body starts and ends in are not counted (they hold other requests' bytes too),
/// so a request gets at most two reads (NIO reads at most 64 KiB at a time) beyond the limits.
struct BodyWireCount {
    /// A read under way: which request's body it began in, its size, and that body's size then.
    struct Read {
        var request: Int
        var bytes: Int
        var bodyBytes: Int
    }

    enum Verdict: Equatable {
        case within
        /// The body's bytes on the wire passed the body limit and the allowance.
        case overLimit
        /// Reads with no body data in them, one after the other, passed the run limit.
        case framingRunTooLong
    }

    /// The most bytes a body may take on the wire.
    let wireLimit: Int
    /// The most bytes of reads in a row that carry no body data.
    let framingRunLimit: Int
    private var wireBytes = 0
    private var framingRun = 0
    private var pending: Read?

    init(bodyLimit: Int, framingRunLimit: Int) {
        let allowance = max(bodyLimit / 8, 64 << 10)
        wireLimit = bodyLimit > Int.max - allowance ? Int.max : bodyLimit + allowance
        self.framingRunLimit = framingRunLimit
    }

    /// Starts over for a new request.
    mutating func reset() {
        wireBytes = 0
        framingRun = 0
        pending = nil
    }

    /// A read of `bytes` arrives while request number `request` has `bodyBytes` of body so far.
    mutating func readStarts(request: Int, bytes: Int, bodyBytes: Int) {
        pending = Read(request: request, bytes: bytes, bodyBytes: bodyBytes)
    }

    /// The read under way, if it began within a body; taken once.
    mutating func takeRead() -> Read? {
        defer { pending = nil }
        return pending
    }

    /// Counts `read`, which ended within the body it began in, now `bodyBytes` long.
    mutating func count(_ read: Read, bodyBytes: Int) -> Verdict {
        wireBytes += read.bytes
        if bodyBytes == read.bodyBytes { framingRun += read.bytes } else { framingRun = 0 }
        if wireBytes > wireLimit { return .overLimit }
        if framingRun > framingRunLimit { return .framingRunTooLong }
        return .within
    }
}
