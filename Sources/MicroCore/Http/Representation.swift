import Crypto
import Foundation
import NIOCore

/// A file or a block of bytes about to be sent, with its validators: answers conditional
/// requests (`If-Match`, `If-Unmodified-Since`, `If-None-Match`, `If-Modified-Since`) and
/// range requests (`Range`, `If-Range`) as RFC 9110 orders them. Static files and
/// `Request.sendFile` and `Request.sendData` both answer through it.
struct Representation {
    /// Where the bytes are.
    enum Content {
        /// A file, streamed from disk when the response is written.
        case file(path: String)
        /// Bytes in memory.
        case bytes(ByteBuffer)
    }

    /// What a request gets, the preconditions and its `Range` evaluated.
    enum Outcome: Equatable {
        /// 200 with everything.
        case whole
        /// 206 with these bytes.
        case part(Range<Int>)
        /// 304, no body.
        case notModified
        /// 412: `If-Match` or `If-Unmodified-Since` failed.
        case preconditionFailed
        /// 416: no range asked for lies inside the content.
        case unsatisfiable
    }

    let content: Content
    /// The number of bytes.
    let size: Int
    /// A strong entity tag, quotes included.
    let etag: String
    /// Seconds since 1970, when known.
    let lastModified: Int?

    /// A file found on disk; its tag is made of its size and modification time, as nginx's.
    init(file: DiskFile) {
        content = .file(path: file.path)
        size = file.size
        etag = "\"\(String(file.size, radix: 16))-\(String(file.modified, radix: 16))-\(String(file.modifiedNanoseconds, radix: 16))\""
        lastModified = file.modified
    }

    /// Bytes in memory; the tag is a hash of them, so equal bytes always get the same tag.
    init(bytes: ByteBuffer) {
        content = .bytes(bytes)
        size = bytes.readableBytes
        let digest = bytes.withUnsafeReadableBytes { SHA256.hash(data: $0) }
        etag = "\"" + digest.prefix(16).map { ($0 < 16 ? "0" : "") + String($0, radix: 16) }.joined() + "\""
        lastModified = nil
    }

    /// The answer to a `method` request with `headers`: the validators and `Accept-Ranges`
    /// always; `metadata` (the content type, a disposition) and the body with a 200 or a 206.
    /// Headers already in `response` stay.
    func answer(_ method: HttpMethod, _ headers: HttpHeaders, into response: inout Response, metadata: HttpHeaders) {
        response.headers.replaceOrAdd(name: "ETag", value: etag)
        if let lastModified { response.headers.replaceOrAdd(name: "Last-Modified", value: HttpDate.format(lastModified)) }
        response.headers.replaceOrAdd(name: "Accept-Ranges", value: "bytes")
        let outcome = outcome(method, headers)
        switch outcome {
        case .notModified:
            response.status = .notModified
            response.body = .empty
            return
        case .preconditionFailed:
            response.status = .preconditionFailed
            response.headers.replaceOrAdd(name: "Content-Type", value: "text/plain; charset=utf-8")
            response.setBody("A precondition of the request (If-Match or If-Unmodified-Since) does not hold.\n")
            return
        case .unsatisfiable:
            response.status = .rangeNotSatisfiable
            response.headers.replaceOrAdd(name: "Content-Range", value: "bytes */\(size)")
            response.headers.replaceOrAdd(name: "Content-Type", value: "text/plain; charset=utf-8")
            response.setBody("The requested range is not satisfiable: the content has \(size) bytes.\n")
            return
        case .whole, .part:
            break
        }
        for (name, value) in metadata { response.headers.replaceOrAdd(name: name, value: value) }
        var range = 0..<size
        if case .part(let part) = outcome {
            range = part
            response.status = .partialContent
            response.headers.replaceOrAdd(name: "Content-Range", value: "bytes \(part.lowerBound)-\(part.upperBound - 1)/\(size)")
        } else {
            response.status = .ok
        }
        switch content {
        case .file(let path):
            response.body = .file(FileRegionBody(path: path, offset: range.lowerBound, length: range.count))
        case .bytes(let bytes):
            response.body = .bytes(bytes.getSlice(at: bytes.readerIndex + range.lowerBound, length: range.count) ?? bytes)
        }
    }

    /// The preconditions in RFC 9110's order (13.2.2), then the range.
    func outcome(_ method: HttpMethod, _ headers: HttpHeaders) -> Outcome {
        let ifMatch = headers[canonicalForm: "If-Match"]
        if !ifMatch.isEmpty {
            // Strong comparison: a weak tag never matches.
            guard ifMatch.contains(where: { $0 == "*" || $0 == etag }) else { return .preconditionFailed }
        } else if let since = date(headers, "If-Unmodified-Since"), let lastModified, lastModified > since {
            return .preconditionFailed
        }
        let getOrHead = method == .GET || method == .HEAD
        let ifNoneMatch = headers[canonicalForm: "If-None-Match"]
        if !ifNoneMatch.isEmpty {
            // Weak comparison: `W/"x"` matches `"x"`.
            if ifNoneMatch.contains(where: { $0 == "*" || $0 == etag || $0 == "W/" + etag }) {
                return getOrHead ? .notModified : .preconditionFailed
            }
        } else if getOrHead, let since = date(headers, "If-Modified-Since"), let lastModified, lastModified <= since {
            return .notModified
        }
        // Ranges are defined for GET only (RFC 9110, 14.2): HEAD gets the whole's headers.
        let ranges = headers["Range"]
        guard method == .GET, ranges.count == 1, ifRangeHolds(headers) else { return .whole }
        switch ByteRanges(Substring(ranges[0]), size: size) {
        case .whole: return .whole
        case .part(let range): return .part(range)
        case .unsatisfiable: return .unsatisfiable
        }
    }

    /// `If-Range`: the range is sent only if the client's copy is this one, named by a strong
    /// tag or by exactly its `Last-Modified` date; otherwise the whole is.
    private func ifRangeHolds(_ headers: HttpHeaders) -> Bool {
        let values = headers["If-Range"]
        guard !values.isEmpty else { return true }
        guard values.count == 1 else { return false }
        let value = values[0].trimmingSpaces()
        if value.hasPrefix("\"") || value.hasPrefix("W/") { return value == etag }
        guard let lastModified, let date = HttpDate.parse(value) else { return false }
        return date == lastModified
    }

    /// A date header with one valid IMF-fixdate, else nil (the condition is then ignored).
    private func date(_ headers: HttpHeaders, _ name: String) -> Int? {
        let values = headers[name]
        guard values.count == 1 else { return nil }
        return HttpDate.parse(values[0])
    }
}
