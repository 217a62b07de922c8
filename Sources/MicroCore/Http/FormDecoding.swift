import Foundation
import MultipartKit
import NIOCore

/// Decodes query strings, `application/x-www-form-urlencoded` and `multipart/form-data` bodies.
enum FormDecoding {
    /// Splits `a=1&b=x+y&c` into pairs, percent-decoding names and values (`+` is a space);
    /// pieces with an empty name are left out. Throws a 400 ``HttpError`` for a malformed escape
    /// (or one that decodes to invalid UTF-8), and `limits`' answers once they are passed.
    ///
    /// By bytes, in one pass over the fields: each one's end and `=` are found with `memchr`,
    /// and a name or value without escapes becomes a string at once. Bytes outside escapes that
    /// are not UTF-8 read as U+FFFD (as `String(decoding:as:)` reads them) before the escapes are
    /// decoded, so a raw byte never joins an escaped one into a character; `&` and `=` are found
    /// as bytes, even before a combining mark.
    static func urlEncoded(_ bytes: UnsafeBufferPointer<UInt8>, limits: FormLimits) throws(HttpError) -> [(name: String, value: String)] {
        guard let base = bytes.baseAddress else { return [] }
        let count = bytes.count
        var pairs: [(name: String, value: String)] = []
        var fields = 0
        var memory = 0
        var start = 0
        while start < count {
            if base[start] == UInt8(ascii: "&") {
                start += 1
                continue
            }
            fields += 1
            if fields > limits.fields { throw limits.tooManyFields }
            // A field with an empty name is decoded (a bad escape in it is still a 400), but
            // not kept, nor counted toward the memory limit.
            let kept = base[start] != UInt8(ascii: "=")
            let budget = kept ? limits.memory - memory : .max
            // The field's end is looked for only as far as a field within the budget reaches
            // (an escape takes three bytes for one).
            let remaining = count - start
            let reach = budget >= (Int.max - 3) / 3 ? remaining : min(remaining, 3 * budget + 3)
            let end: Int
            if let found = memchr(base + start, Int32(UInt8(ascii: "&")), reach) {
                end = UnsafeRawPointer(found) - UnsafeRawPointer(base)
            } else if reach == remaining {
                end = count
            } else {
                throw limits.tooMuchMemory
            }
            let equals = memchr(base + start, Int32(UInt8(ascii: "=")), end - start).map { UnsafeRawPointer($0) - UnsafeRawPointer(base) }
            let nameEnd = equals ?? end
            let valueStart = equals.map { $0 + 1 } ?? end
            let name = try component(UnsafeBufferPointer(start: base + start, count: nameEnd - start), budget: budget, limits)
            let value = try component(
                UnsafeBufferPointer(start: base + valueStart, count: end - valueStart), budget: budget - name.utf8.count, limits)
            start = end + 1
            guard kept else { continue }
            memory += name.utf8.count + value.utf8.count
            if memory > limits.memory { throw limits.tooMuchMemory }
            pairs.append((name, value))
        }
        return pairs
    }

    /// ``urlEncoded(_:limits:)`` over a body's bytes.
    static func urlEncoded(_ body: ByteBuffer, limits: FormLimits) throws(HttpError) -> [(name: String, value: String)] {
        try body.withUnsafeReadableBytes { raw in
            Result { () throws(HttpError) in try urlEncoded(raw.bindMemory(to: UInt8.self), limits: limits) }
        }.get()
    }

    /// ``urlEncoded(_:limits:)`` over a string's UTF-8.
    static func urlEncoded(_ text: String, limits: FormLimits) throws(HttpError) -> [(name: String, value: String)] {
        var text = text
        return try text.withUTF8 { bytes in
            Result { () throws(HttpError) in try urlEncoded(bytes, limits: limits) }
        }.get()
    }

    /// One name or value, decoded; over `budget` bytes, the memory limit's answer (when that is
    /// sure before decoding: without escapes it is as long as its bytes, or longer).
    private static func component(_ bytes: UnsafeBufferPointer<UInt8>, budget: Int, _ limits: FormLimits) throws(HttpError) -> String {
        guard let base = bytes.baseAddress, !bytes.isEmpty else { return "" }
        let escaped = memchr(base, Int32(UInt8(ascii: "%")), bytes.count) != nil
        if !escaped {
            if bytes.count > budget { throw limits.tooMuchMemory }
            if memchr(base, Int32(UInt8(ascii: "+")), bytes.count) == nil { return String(decoding: bytes, as: UTF8.self) }
        }
        let decoded: String?
        if bytes.contains(where: { $0 >= 0x80 }) {
            // Bytes outside the escapes that are not UTF-8 read as U+FFFD first, so that none
            // joins an escaped byte into a character.
            decoded = PercentEncoding.decode(Substring(String(decoding: bytes, as: UTF8.self)), plusAsSpace: true)
        } else {
            decoded = PercentEncoding.decode(bytes, plusAsSpace: true)
        }
        guard let decoded else {
            throw HttpError(.badRequest, "Malformed percent-encoding in the query string or form body.")
        }
        return decoded
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

    /// Parses a `multipart/form-data` body into its text fields and files, within `limits`:
    /// every part counts toward the fields, and the text fields' names and values toward the
    /// memory. The body is parsed a slice at a time, so that parsing stops soon after a limit is
    /// passed.
    static func multipart(_ body: ByteBuffer, boundary: String, limits: FormLimits = .none) throws(HttpError) -> (
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
        // The part being read is a file (its bytes are not counted), known at its first bytes.
        var partIsFile: Bool?
        var parts = 0
        var memory = 0
        var limitPassed: HttpError?

        func isFile(_ headers: [(String, String)]) -> Bool {
            let disposition = headers.last { $0.0.lowercased() == "content-disposition" }?.1 ?? ""
            return HeaderAttributes(disposition)["filename"] != nil
        }

        let parser = MultipartParser(boundary: boundary)
        parser.onHeader = { name, value in headers.append((name, value)) }
        parser.onBody = { buffer in
            if partIsFile == nil { partIsFile = isFile(headers) }
            if partIsFile == false {
                memory += buffer.readableBytes
                if memory > limits.memory, limitPassed == nil { limitPassed = limits.tooMuchMemory }
            }
            data.append(contentsOf: buffer.readableBytesView)
        }
        parser.onPartComplete = {
            defer { headers.removeAll(); data.removeAll(); partIsFile = nil }
            parts += 1
            if parts > limits.fields, limitPassed == nil { limitPassed = limits.tooManyFields }
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
                memory += name.utf8.count
                if memory > limits.memory, limitPassed == nil { limitPassed = limits.tooMuchMemory }
                fields.append((name, text))
            } else {
                malformedPart = true
            }
        }
        do {
            var offset = 0
            while offset < body.readableBytes {
                let length = min(Self.multipartSlice, body.readableBytes - offset)
                try parser.execute(body.getSlice(at: body.readerIndex + offset, length: length)!)
                offset += length
                if let limitPassed { throw limitPassed }
            }
        } catch let error as HttpError {
            throw error
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

    /// The bytes of a multipart body parsed at a time: the limits are checked in between.
    static let multipartSlice = 16 << 10
}

extension StringProtocol {
    /// The text without the spaces and tabs around it (HTTP's optional whitespace), leaving
    /// every other character, unlike Foundation's trimming of all Unicode white space.
    public func trimmingSpaces() -> String {
        var slice = Substring(self)
        while let first = slice.first, first == " " || first == "\t" { slice.removeFirst() }
        while let last = slice.last, last == " " || last == "\t" { slice.removeLast() }
        return String(slice)
    }
}
