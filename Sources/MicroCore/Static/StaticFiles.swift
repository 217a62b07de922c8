import Foundation

/// Serves the files under the public folder, with `ETag`, `Last-Modified`, `Cache-Control`,
/// 304s and byte ranges (see `Representation`), streamed from disk. No path outside the
/// folder is ever served: `..`, encoded slashes and backslashes are refused before the file
/// system is touched, and the resolved path (symlinks followed) must still lie inside the
/// folder.
///
/// The look-up (`stat`, and `realpath` for a file that exists) runs on the calling thread: it
/// reads metadata only, as nginx does on its event loop; the content is streamed later without
/// blocking. In production the folder's top-level names are read once at start-up, so a
/// request for a route costs no system call at all; a new top-level file or folder then
/// needs a restart (files added inside existing folders are found at once).
struct StaticFiles: Sendable {
    /// The folder's real path, without a trailing slash.
    let root: String
    let cacheControl: String
    /// The names at the top of the folder (production), or nil to look on disk every time.
    let topLevelNames: Set<String>?

    /// Nil when the folder does not exist.
    init?(folder: String, cacheControl: String, environment: Environment) {
        guard let root = DiskFile.realPath(folder), DiskFile.isFolder(root) else { return nil }
        self.root = root
        self.cacheControl = cacheControl
        if environment == .production {
            topLevelNames = Set((try? FileManager.default.contentsOfDirectory(atPath: root)) ?? [])
        } else {
            topLevelNames = nil
        }
    }

    /// The response for a file under the folder, or nil when the path names none (the request
    /// then goes on to the routes).
    func response(for request: Request) -> Response? {
        if let topLevelNames {
            // The path's first segment, still encoded: enough to rule out most route paths.
            let first = request.path.utf8.dropFirst().prefix { $0 != UInt8(ascii: "/") }
            let name = String(decoding: first, as: UTF8.self)
            if !topLevelNames.contains(name), !name.utf8.contains(UInt8(ascii: "%")) { return nil }
        }
        guard let relative = Self.safeRelativePath(request.path), let file = DiskFile(root + relative, inside: root) else {
            return nil
        }
        var response = Response()
        response.headers.add(name: "Cache-Control", value: cacheControl)
        Representation(file: file).answer(
            request.method, request.headers, into: &response,
            metadata: ["Content-Type": MimeTypes.type(forFileNamed: file.path)])
        return response
    }

    /// The decoded path if it is safe to join to the folder: no malformed escapes, no encoded
    /// slash or backslash, no backslash or NUL, no segment starting with a dot.
    static func safeRelativePath(_ rawPath: String) -> String? {
        // Encoded slashes, backslashes and NULs are refused before decoding.
        var previous: (UInt8, UInt8) = (0, 0)
        for byte in rawPath.utf8 {
            if previous.0 == UInt8(ascii: "%") {
                let escape = (previous.1, byte | 0x20)  // lowercase the second hex digit
                if escape == (UInt8(ascii: "2"), UInt8(ascii: "f")) || escape == (UInt8(ascii: "5"), UInt8(ascii: "c"))
                    || escape == (UInt8(ascii: "0"), UInt8(ascii: "0"))
                {
                    return nil
                }
            }
            previous = (previous.1, byte)
        }
        guard let decoded = PercentEncoding.decode(Substring(rawPath)), decoded.utf8.first == UInt8(ascii: "/") else { return nil }
        // No backslash or NUL anywhere, and no segment starting with a dot: that refuses `.` and
        // `..`, and keeps hidden files (`.env`, `.git/`) private.
        var last = UInt8(ascii: "/")
        for byte in decoded.utf8 {
            if byte == UInt8(ascii: "\\") || byte == 0 { return nil }
            if byte == UInt8(ascii: "."), last == UInt8(ascii: "/") { return nil }
            last = byte
        }
        return decoded
    }
}
