import Foundation
import MultipartKit
import NIOCore

/// A header value with `;`-separated attributes: `form-data; name="a"; filename="b.txt"`.
struct HeaderAttributes {
    /// The part before the first `;`.
    var value: String
    private var attributes: [(String, String)] = []

    init(_ header: String) {
        var parts = Self.split(header)
        value = parts.isEmpty ? "" : parts.removeFirst().trimmingSpaces()
        for part in parts {
            guard let equals = part.firstIndex(of: "=") else { continue }
            let key = part[..<equals].trimmingSpaces().lowercased()
            var raw = part[part.index(after: equals)...].trimmingSpaces()
            if raw.count >= 2, raw.hasPrefix("\""), raw.hasSuffix("\"") {
                raw = String(raw.dropFirst().dropLast()).replacingOccurrences(of: "\\\"", with: "\"")
            }
            attributes.append((key, raw))
        }
    }

    /// The attribute's value; names are case-insensitive.
    subscript(name: String) -> String? {
        attributes.first { $0.0 == name.lowercased() }?.1
    }

    /// Splits on `;` outside quotes.
    private static func split(_ header: String) -> [Substring] {
        var parts: [Substring] = []
        var start = header.startIndex
        var quoted = false
        var index = header.startIndex
        while index != header.endIndex {
            let char = header[index]
            if char == "\"" { quoted.toggle() }
            if char == ";" && !quoted {
                parts.append(header[start..<index])
                start = header.index(after: index)
            }
            index = header.index(after: index)
        }
        parts.append(header[start...])
        return parts
    }
}
