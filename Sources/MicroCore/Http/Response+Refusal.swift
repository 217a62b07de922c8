extension Response {
    /// The plain-text answer to a request refused before the app sees it (413, 431, 408, 400,
    /// 503); no cache keeps it.
    static func refusal(_ status: HttpStatus, _ message: String) -> Response {
        var response = Response(status: status, contentType: "text/plain; charset=utf-8", body: message + "\n")
        response.headers.add(name: "Cache-Control", value: "no-store")
        response.finalize(for: .GET)
        return response
    }

    /// What a 413 says.
    static func bodyTooLarge(limit: Int) -> String {
        "The request body is larger than \(limit) bytes."
    }
}
