// `multipart/form-data` bodies (MultipartKit's parser under Micro's part handling).
//
// The input's first line is the Content-Type header, the rest the body. Checks: no crash; a
// malformed body is a thrown 400 and an empty one is refused; the fields and files it gave,
// written again as a browser would (under a boundary none of them holds), parse back to the
// same fields and files.
@_spi(Fuzzing) import Micro
import FuzzSupport

@_cdecl("LLVMFuzzerTestOneInput")
public func fuzzMultipart(_ data: UnsafePointer<UInt8>?, _ count: Int) -> CInt {
    let (head, body) = split(bytes(data, count), at: UInt8(ascii: "\n"))
    let contentType = text(head)
    let parts: (fields: [(name: String, value: String)], files: [UploadedFile])
    do {
        parts = try FuzzingEntryPoints.multipart(contentType: contentType, body: body)
    } catch {
        require(error.status == .badRequest, "a multipart error other than 400: \(error)")
        return 0
    }
    require(!body.isEmpty, "an empty body gave parts")

    // Only what a browser can send round-trips: names without quotes, backslashes or line
    // breaks (browsers escape them), and no edge spaces (headers are trimmed).
    func writable(_ text: String) -> Bool {
        !text.utf8.contains { $0 == UInt8(ascii: "\"") || $0 == UInt8(ascii: "\\") || $0 < 0x20 || $0 == 0x7F }
            && text.trimmingSpaces == text
    }
    let names = parts.fields.map(\.name) + parts.files.flatMap { [$0.fieldName, $0.filename, $0.contentType] }
    guard names.allSatisfy(writable), parts.files.allSatisfy({ !$0.filename.isEmpty && !$0.contentType.isEmpty }) else {
        return 0
    }
    let contents = parts.fields.map { Array($0.value.utf8) } + parts.files.map(\.data) + names.map { Array($0.utf8) }
    var boundary = "fuzzBoundary"
    while contents.contains(where: { occurs(Array(boundary.utf8), in: $0) }) { boundary += "x" }
    guard boundary.utf8.count <= 70 else { return 0 }

    var written: [UInt8] = []
    for field in parts.fields {
        written += Array("--\(boundary)\r\nContent-Disposition: form-data; name=\"\(field.name)\"\r\n\r\n".utf8)
        written += Array(field.value.utf8) + Array("\r\n".utf8)
    }
    for file in parts.files {
        written += Array("--\(boundary)\r\nContent-Disposition: form-data; name=\"\(file.fieldName)\"; filename=\"\(file.filename)\"\r\nContent-Type: \(file.contentType)\r\n\r\n".utf8)
        written += file.data + Array("\r\n".utf8)
    }
    written += Array("--\(boundary)--\r\n".utf8)
    do {
        let again = try FuzzingEntryPoints.multipart(contentType: "multipart/form-data; boundary=\(boundary)", body: written)
        require(again.fields.map(\.name) == parts.fields.map(\.name) && again.fields.map(\.value) == parts.fields.map(\.value),
            "fields changed when written again: \(parts.fields) -> \(again.fields)")
        require(again.files.map(\.fieldName) == parts.files.map(\.fieldName)
            && again.files.map(\.filename) == parts.files.map(\.filename)
            && again.files.map(\.contentType) == parts.files.map(\.contentType)
            && again.files.map(\.data) == parts.files.map(\.data),
            "files changed when written again")
    } catch {
        fatalError("the parts, written again, are refused: \(error); \(parts.fields), \(parts.files.map(\.filename))")
    }
    return 0
}

extension String {
    var trimmingSpaces: String {
        var slice = Substring(self)
        while let first = slice.first, first == " " || first == "\t" { slice.removeFirst() }
        while let last = slice.last, last == " " || last == "\t" { slice.removeLast() }
        return String(slice)
    }
}

/// The entry point a debug build of the package's tests asks for (see `fuzzerMain`).
@_cdecl("FuzzMultipart_main")
public func fuzzMultipartMain(_ argc: CInt, _ argv: UnsafeMutablePointer<UnsafeMutablePointer<CChar>?>?) -> CInt {
    fuzzerMain(argc, argv)
}
