import NIOCore

extension Request {
    /// Stops the request here and answers with a file, streamed from disk, as Sinatra's
    /// `send_file` does. Keeps the headers set so far.
    ///
    /// The answer carries the content type (from `contentType`, else one the route set, else
    /// the file name's extension), `ETag`, `Last-Modified` and `Accept-Ranges: bytes`; a
    /// conditional request gets a 304 (or a 412), a `Range` request the part asked for
    /// (206, or 416 when it lies outside the file), HEAD the headers alone. Several ranges in
    /// one request get the whole file. A missing file, a folder, or a path outside `folder`
    /// is a 404 ``HttpError``.
    ///
    /// ```swift
    /// // /reports/q3.pdf downloads reports/q3.pdf; /reports/../credentials.yml is a 404.
    /// app.get("/reports/:name") { request in
    ///     try request.sendFile(request.params["name"] ?? "", in: "reports", disposition: .attachment)
    /// }
    /// // Saved as "Q3 report.pdf", whatever the file is called on disk.
    /// app.get("/latest") { request in
    ///     try request.sendFile("reports/2024-q3.pdf", filename: "Q3 report.pdf")
    /// }
    /// ```
    ///
    /// - Parameters:
    ///   - path: The file. With `folder`, a path inside it: a segment starting with a dot
    ///     (`..`, `.env`), a backslash or a symlink leading out of the folder makes it a 404,
    ///     so it can come from the request. Without `folder`, any path the app can read:
    ///     never pass one the client chose.
    ///   - folder: The folder `path` must lie in.
    ///   - filename: The name the browser gives the file; any text is made safe for the header
    ///     (see ``ContentDisposition``). Giving one makes the file a download unless
    ///     `disposition` says otherwise.
    ///   - disposition: `.attachment` to have it saved, `.inline` to have it shown, with
    ///     `filename` or else the file's own name. Nil (the default) sends no
    ///     `Content-Disposition` unless `filename` is given.
    ///   - contentType: The content type, in place of the one guessed from the name.
    public func sendFile(
        _ path: String, in folder: String? = nil, filename: String? = nil,
        disposition: ContentDisposition? = nil, contentType: String? = nil
    ) throws -> Never {
        guard let file = findFile(path, in: folder) else { throw HttpError(.notFound, "No such file.") }
        // The last name in `path`, not in the real path: that may be a symlink's target.
        let ownName = String(path.utf8.split(separator: UInt8(ascii: "/")).last.map { Substring($0) } ?? "")
        try send(Representation(file: file), name: filename ?? ownName, nameGiven: filename != nil, disposition, contentType)
    }

    /// Stops the request here and answers with `bytes` as a file, Rails' `send_data`: the
    /// same headers, conditional requests and ranges as
    /// ``sendFile(_:in:filename:disposition:contentType:)``, with an `ETag` hashed from the
    /// bytes. The content type is `contentType`, else one the route set, else the one
    /// `filename`'s extension names, else `application/octet-stream`. The bytes are hashed
    /// for the tag on every request and held in memory: for large content, write a file and
    /// send that.
    ///
    /// ```swift
    /// app.get("/chart.png") { request in
    ///     try request.sendData(try chart.pngBytes(), filename: "chart \(day).png")
    /// }
    /// ```
    public func sendData(
        _ bytes: some Sequence<UInt8>, filename: String? = nil,
        disposition: ContentDisposition? = nil, contentType: String? = nil
    ) throws -> Never {
        try sendData(ByteBuffer(bytes: bytes), filename: filename, disposition: disposition, contentType: contentType)
    }

    /// Stops the request here and answers with `text` in UTF-8 as a file; `text/plain` when
    /// neither `contentType` nor `filename` names another type.
    ///
    /// ```swift
    /// app.get("/notes.md") { request in
    ///     try request.sendData(notes.markdown, filename: "notes.md")
    /// }
    /// ```
    public func sendData(
        _ text: String, filename: String? = nil,
        disposition: ContentDisposition? = nil, contentType: String? = nil
    ) throws -> Never {
        try send(
            Representation(bytes: ByteBuffer(string: text)), name: filename, nameGiven: filename != nil, disposition,
            contentType, otherwise: "text/plain; charset=utf-8")
    }

    /// Stops the request here and answers with the buffer's readable bytes as a file.
    public func sendData(
        _ buffer: ByteBuffer, filename: String? = nil,
        disposition: ContentDisposition? = nil, contentType: String? = nil
    ) throws -> Never {
        try send(Representation(bytes: buffer), name: filename, nameGiven: filename != nil, disposition, contentType)
    }

    /// Halts with `representation`; its type is `contentType`, else the route's, else the
    /// one `name` names, else `otherwise`.
    private func send(
        _ representation: Representation, name: String?, nameGiven: Bool, _ disposition: ContentDisposition?,
        _ contentType: String?, otherwise: String = MimeTypes.octetStream
    ) throws -> Never {
        let type = contentType ?? response.contentType ?? name.flatMap(MimeTypes.knownType(forFileNamed:)) ?? otherwise
        var metadata: HttpHeaders = ["Content-Type": type]
        // Sinatra's rule: a name given makes a download unless told otherwise.
        if let disposition = disposition ?? (nameGiven ? .attachment : nil) {
            metadata.add(name: "Content-Disposition", value: disposition.headerValue(filename: name))
        }
        var response = self.response
        representation.answer(method, headers, into: &response, metadata: metadata)
        throw Halt(response: response)
    }

    /// The regular file at `path` (inside `folder` when given), or nil.
    private func findFile(_ path: String, in folder: String?) -> DiskFile? {
        guard let folder else { return DiskFile(path) }
        // Refused before the file system is touched, as the public folder's paths are.
        let segments = path.utf8.split(separator: UInt8(ascii: "/"))
        guard !segments.isEmpty, !segments.contains(where: { $0.first == UInt8(ascii: ".") }),
            !path.utf8.contains(where: { $0 == UInt8(ascii: "\\") || $0 == 0 })
        else { return nil }
        guard let root = DiskFile.realPath(folder), DiskFile.isFolder(root) else {
            logger.warning("sendFile: the folder \(folder) does not exist.")
            return nil
        }
        return DiskFile(root + "/" + path, inside: root)
    }
}
