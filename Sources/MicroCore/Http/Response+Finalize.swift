extension Response {
    /// Sets `Content-Length` from the body (none for 1xx, 204 and 304) and drops the body of
    /// an answer to HEAD, keeping the length GET would have had.
    mutating func finalize(for method: HttpMethod) {
        let code = status.code
        if code < 200 || code == 204 || code == 304 {
            body = .empty
            headers.remove(name: "Content-Length")
            return
        }
        headers.replaceOrAdd(name: "Content-Length", value: String(body.count))
        if method == .HEAD { body = .empty }
    }
}
