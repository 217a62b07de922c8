import NIOHTTP1
import NIOCore

/// The default pages for errors: HTML for browsers, JSON for clients that ask for it.
enum ErrorPages {
    /// The page for `status` with `message`; `detail` (development only) adds the error's
    /// description and where it was thrown. The JSON answer carries `fields`, the message of
    /// each field at fault, as `"fields": {"name": "message"}` (the page's message names them).
    static func page(status: HttpStatus, message: String, detail: String?, json: Bool, fields: [(String, String)] = []) -> Response {
        var response = Response(status: status)
        if json {
            var json = "{\"error\":\"" + JsonText.escape(message) + "\""
            if !fields.isEmpty {
                json += ",\"fields\":{" + fields.map { "\"" + JsonText.escape($0.0) + "\":\"" + JsonText.escape($0.1) + "\"" }.joined(separator: ",") + "}"
            }
            if let detail { json += ",\"detail\":\"" + JsonText.escape(detail) + "\"" }
            json += "}"
            response.contentType = "application/json"
            response.setBody(json)
            return response
        }
        let title = "\(status.code) \(status.reasonPhrase)"
        var html = """
            <!DOCTYPE html>
            <html lang="en"><head><meta charset="utf-8">
            <meta name="viewport" content="width=device-width, initial-scale=1">
            <title>\(Html.escape(title))</title>
            </head><body><h1>\(Html.escape(title))</h1>
            <p>\(Html.escape(message))</p>

            """
        if let detail {
            html += "<h2>Detail (development only)</h2>\n<pre>\(Html.escape(detail))</pre>\n"
        }
        html += "</body></html>\n"
        response.contentType = "text/html; charset=utf-8"
        response.setBody(html)
        return response
    }
}
