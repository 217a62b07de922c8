import Foundation
import MultipartKit
import NIOCore

/// Decodes query strings, `application/x-www-form-urlencoded` and `multipart/form-data` bodies.
enum FormDecoding {
    /// Splits `a=1&b=x+y&c` into pairs, percent-decoding names and values.
    /// Throws a 400 ``HttpError`` for a malformed escape.
    static func urlEncoded(_ text: Substring) throws(HttpError) -> [(name: String, value: String)] {
        var pairs: [(name: String, value: String)] = []
        for field in text.split(separator: "&", omittingEmptySubsequences: true) {
            let equals = field.firstIndex(of: "=")
            let rawName = equals.map { field[..<$0] } ?? field
            let rawValue = equals.map { field[field.index(after: $0)...] } ?? ""
            guard let name = PercentEncoding.decode(rawName, plusAsSpace: true),
                let value = PercentEncoding.decode(rawValue, plusAsSpace: true)
            else {
                throw HttpError(.badRequest, "Malformed percent-encoding in the query string or form body.")
            }
            if name.isEmpty { continue }
            pairs.append((name, value))
        }
        return pairs
    }

    private static func contains(_ haystack: ByteBufferView, _ needle: [UInt8]) -> Bool {
        guard !needle.isEmpty, haystack.count >= needle.count else { return false }
        var start = haystack.startIndex
        while let first = haystack[start...].firstIndex(of: needle[0]) {
            guard haystack.endIndex - first >= needle.count else { return false }
            if haystack[first..<(first + needle.count)].elementsEqual(needle) { return true }
            start = first + 1
        }
        return false
    }

    /// Parses a `multipart/form-data` body into its text fields and files.
    static func multipart(_ body: ByteBuffer, boundary: String) throws(HttpError) -> (
        fields: [(name: String, value: String)], files: [UploadedFile]
    ) {
        guard !boundary.isEmpty, boundary.utf8.count <= 70 else {
            throw HttpError(.badRequest, "The multipart body has no valid boundary.")
        }
        guard !MultipartHeaderCheck.isRefused(body, boundary: boundary) else {
            throw HttpError(.badRequest, "Malformed multipart/form-data body: a part's header name is not ASCII, or its headers hold the boundary.")
        }
        // A form with no fields: browsers send the closing delimiter alone, which MultipartKit
        // refuses.
        if body.readableBytesView.starts(with: "--\(boundary)--".utf8) { return ([], []) }
        var fields: [(name: String, value: String)] = []
        var files: [UploadedFile] = []
        var headers: [(String, String)] = []
        var data: [UInt8] = []
        var malformedPart = false

        let parser = MultipartParser(boundary: boundary)
        parser.onHeader = { name, value in headers.append((name, value)) }
        parser.onBody = { buffer in data.append(contentsOf: buffer.readableBytesView) }
        parser.onPartComplete = {
            defer { headers.removeAll(); data.removeAll() }
            let disposition = headers.last { $0.0.lowercased() == "content-disposition" }?.1 ?? ""
            let attributes = HeaderAttributes(disposition)
            guard attributes.value.lowercased() == "form-data", let name = attributes["name"] else {
                malformedPart = true
                return
            }
            if let filename = attributes["filename"] {
                let type = headers.last { $0.0.lowercased() == "content-type" }?.1
                files.append(UploadedFile(fieldName: name, filename: filename,
                    contentType: type ?? "application/octet-stream", data: data))
            } else if let text = String(validating: data, as: UTF8.self) {
                fields.append((name, text))
            } else {
                malformedPart = true
            }
        }
        do {
            try parser.execute(body)
        } catch {
            throw HttpError(.badRequest, "Malformed multipart/form-data body.")
        }
        // MultipartKit's parser accepts a body cut short; a complete one ends with the
        // closing delimiter (`--boundary--`), possibly followed by an epilogue.
        guard Self.contains(body.readableBytesView, Array("--\(boundary)--".utf8)) else {
            throw HttpError(.badRequest, "The multipart/form-data body is incomplete (no closing boundary).")
        }
        guard !malformedPart else {
            throw HttpError(.badRequest, "A multipart part has no form-data name or is not valid UTF-8.")
        }
        return (fields, files)
    }
}

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

extension StringProtocol {
    func trimmingSpaces() -> String {
        var slice = Substring(self)
        while let first = slice.first, first == " " || first == "\t" { slice.removeFirst() }
        while let last = slice.last, last == " " || last == "\t" { slice.removeLast() }
        return String(slice)
    }
}
