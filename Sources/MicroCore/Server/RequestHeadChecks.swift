import NIOHTTP1

/// What the server checks in a request head before the app sees it: the `Host` fields, a
/// switch to another protocol, the head's size.
enum RequestHeadChecks {
    /// Why the request's `Host` header fields are refused, if they are: RFC 9112 (section 3.2)
    /// has a server answer 400 to an HTTP/1.1 request without one, and to any request with more
    /// than one. (An HTTP/1.0 client need not send it.)
    static func hostProblem(_ head: HTTPRequestHead) -> String? {
        var count = 0
        for (name, _) in head.headers where isHost(name) { count += 1 }
        if count > 1 { return "The request has \(count) Host header fields; it must have one." }
        if count == 0, head.version.major > 1 || (head.version.major == 1 && head.version.minor >= 1) {
            return "The request has no Host header field, which HTTP/1.1 requires (RFC 9112, section 3.2)."
        }
        return nil
    }

    /// Whether a header field's name is `Host`, in any case; without allocating.
    private static func isHost(_ name: String) -> Bool {
        let utf8 = name.utf8
        guard utf8.count == 4 else { return false }
        return zip(utf8, "host".utf8).allSatisfy { $0 | 0x20 == $1 }
    }

    /// Whether NIO's decoder takes the request as a switch to another protocol, after which it
    /// reads no more requests: a CONNECT, or an `Upgrade` header with `Connection: upgrade`
    /// (llhttp's rule).
    static func isUpgrade(_ head: HTTPRequestHead) -> Bool {
        if head.method == .CONNECT { return true }
        guard head.headers.contains(name: "Upgrade") else { return false }
        return head.headers[canonicalForm: "Connection"].contains { $0.lowercased() == "upgrade" }
    }

    /// The size of the request line and header fields as sent, near enough (CRLFs included).
    static func headerSize(_ head: HTTPRequestHead) -> Int {
        var size = head.method.rawValue.utf8.count + head.uri.utf8.count + 12
        for (name, value) in head.headers { size += name.utf8.count + value.utf8.count + 4 }
        return size
    }
}
