/// Content types by file extension, for static files and downloads.
public enum MimeTypes {
    private static let types: [String: String] = [
        "html": "text/html; charset=utf-8", "htm": "text/html; charset=utf-8",
        "css": "text/css; charset=utf-8", "js": "text/javascript; charset=utf-8",
        "mjs": "text/javascript; charset=utf-8", "json": "application/json",
        "map": "application/json", "txt": "text/plain; charset=utf-8", "md": "text/markdown; charset=utf-8",
        "csv": "text/csv; charset=utf-8", "xml": "application/xml", "svg": "image/svg+xml",
        "png": "image/png", "jpg": "image/jpeg", "jpeg": "image/jpeg", "gif": "image/gif",
        "webp": "image/webp", "avif": "image/avif", "ico": "image/x-icon",
        "woff": "font/woff", "woff2": "font/woff2", "ttf": "font/ttf", "otf": "font/otf",
        "pdf": "application/pdf", "zip": "application/zip", "gz": "application/gzip",
        "wasm": "application/wasm", "mp4": "video/mp4", "webm": "video/webm", "mp3": "audio/mpeg",
        "ogg": "audio/ogg", "wav": "audio/wav", "webmanifest": "application/manifest+json",
    ]

    /// The type of bytes of no known kind.
    static let octetStream = "application/octet-stream"

    /// The content type of a file named `name`; `application/octet-stream` when unknown.
    public static func type(forFileNamed name: String) -> String {
        knownType(forFileNamed: name) ?? octetStream
    }

    /// The content type of a file named `name`, when its extension is one of the list's.
    static func knownType(forFileNamed name: String) -> String? {
        guard let dot = name.lastIndex(of: "."), !name[dot...].contains("/") else { return nil }
        return types[name[name.index(after: dot)...].lowercased()]
    }
}
