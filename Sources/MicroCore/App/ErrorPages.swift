import NIOHTTP1
import NIOCore

/// The default pages for errors: HTML for browsers, JSON for clients that ask for it.
enum ErrorPages {
    /// The built-in template `error` (an app restyles it with `views/error.mustache`): a
    /// client's error (a 403, a 404) is shown in the app's layout when it has one, as its
    /// other pages are; `title` (`404 Not Found`), `status` and `message`.
    static let template = """
        <h1>{{title}}</h1>
        <p class="error-message">{{message}}</p>
        """

    /// The page for a client's error (`status` 4xx) in the app's layout, from the template
    /// `error`; nil when the app has no layout, or when rendering fails (logged), so that the
    /// plain page is shown instead: an error page must not fail with the templates.
    static func inLayout(status: HttpStatus, message: String, request: Request) -> Response? {
        guard (400..<500).contains(status.code), request.services.views.hasTemplate("layout") else { return nil }
        do {
            let html = try request.render("error", ["title": "\(status.code) \(status.reasonPhrase)", "status": Int(status.code), "message": message])
            var response = Response(status: status)
            response.contentType = "text/html; charset=utf-8"
            response.setBody(html)
            return response
        } catch {
            request.logger.error("The error page \(status.code) could not be rendered in the layout: \(error)")
            return nil
        }
    }

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
