/// A `Range` header's byte ranges (RFC 9110, 14.1.2) resolved against the size of what is sent.
enum ByteRanges: Equatable {
    /// The header is not a byte-range request Micro answers in part: another unit, bad syntax
    /// (`bytes=5-2`, `bytes=x`), or several satisfiable ranges. RFC 9110 lets a server ignore
    /// a `Range` it does not serve and send the whole representation with 200, which is what
    /// this asks for; a multipart/byteranges answer is not worth its cost for downloads.
    case whole
    /// One range to send with 206: the only satisfiable one of those asked for.
    case part(Range<Int>)
    /// None of the ranges asked for lies inside the content: a 416.
    case unsatisfiable

    /// Resolves `header` (a `Range` field's value) against `size` bytes.
    init(_ header: Substring, size: Int) {
        // The unit is case-insensitive; no whitespace is allowed around the `=`.
        guard let equals = header.utf8.firstIndex(of: UInt8(ascii: "=")),
            header[..<equals].lowercased() == "bytes", size > 0
        else {
            // An empty representation has no range to send; the whole (nothing) is answered.
            self = .whole
            return
        }
        var satisfiable: Range<Int>?
        var specs = 0
        for element in header[header.utf8.index(after: equals)...].split(separator: ",", omittingEmptySubsequences: false) {
            let spec = Substring(element.trimmingSpaces())
            // Empty list elements are allowed and skipped (RFC 9110, 5.6.1).
            if spec.isEmpty { continue }
            specs += 1
            switch Self.spec(spec, size: size) {
            case .malformed:
                self = .whole
                return
            case .outside:
                continue
            case .inside(let range):
                // Two satisfiable ranges would need a multipart answer: the whole is sent instead.
                if satisfiable != nil {
                    self = .whole
                    return
                }
                satisfiable = range
            }
        }
        if specs == 0 {
            self = .whole
        } else if let satisfiable {
            self = .part(satisfiable)
        } else {
            self = .unsatisfiable
        }
    }

    /// What one range-spec asks for.
    private enum Spec {
        /// Not a range-spec: the whole header is ignored.
        case malformed
        /// Well formed, but outside the content.
        case outside
        /// These bytes.
        case inside(Range<Int>)
    }

    /// A range-spec (`a-b`, `a-`, `-n`) resolved against `size` bytes.
    private static func spec(_ spec: Substring, size: Int) -> Spec {
        guard let dash = spec.utf8.firstIndex(of: UInt8(ascii: "-")) else { return .malformed }
        let firstText = spec[..<dash]
        let lastText = spec[spec.utf8.index(after: dash)...]
        if firstText.isEmpty {
            // `-n`: the last n bytes; `-0` asks for none, which no content satisfies.
            guard let suffix = number(lastText) else { return .malformed }
            return suffix > 0 ? .inside(max(0, size - suffix)..<size) : .outside
        }
        guard let first = number(firstText) else { return .malformed }
        var last = size - 1
        if !lastText.isEmpty {
            // `a-b` with b before a is invalid, not unsatisfiable (RFC 9110, 14.1.1).
            guard let given = number(lastText), given >= first else { return .malformed }
            last = min(given, size - 1)
        }
        return first < size ? .inside(first..<(last + 1)) : .outside
    }

    /// A run of ASCII digits, saturating at `Int.max` (a first byte past any file's end is
    /// still a well-formed, unsatisfiable range); nil for anything else.
    private static func number(_ text: Substring) -> Int? {
        guard !text.isEmpty else { return nil }
        var value = 0
        for byte in text.utf8 {
            guard byte >= UInt8(ascii: "0"), byte <= UInt8(ascii: "9") else { return nil }
            let (times, overflowTimes) = value.multipliedReportingOverflow(by: 10)
            let (sum, overflowSum) = times.addingReportingOverflow(Int(byte - UInt8(ascii: "0")))
            value = overflowTimes || overflowSum ? Int.max : sum
        }
        return value
    }
}
