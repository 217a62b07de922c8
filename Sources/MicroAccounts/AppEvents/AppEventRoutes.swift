import MicroAuth
import MicroCore

/// The audit's app events page: `GET /admin/audit/app` (role ``Accounts/adminRole``), newest
/// first, a page at a time (`page`), filtered by `kind` and `subject`; JSON too.
struct AppEventRoutes {
    let service: AccountsService

    private var settings: Accounts { service.settings }
    private var path: String { settings.auditPath + "/app" }

    func install(in app: App) {
        app.addBuiltInTemplates(["admin/app-events": AppEventTemplates.page])
        app.get(path + "/?") { request in try await page(request) }
    }

    private func page(_ request: Request) async throws -> Response {
        try request.authorize(role: settings.adminRole)
        let query = request.params.query
        let typedPage = query.last(where: { $0.name == "page" })?.value ?? ""
        // A page out of range, negative or not a number is the nearest one there is.
        let page = min(AppEventLimits.pageLimit, max(1, Int(typedPage.prefix(8)) ?? 1))
        // Filters longer than any field are cut to it: they can match nothing longer.
        let kind = query.last(where: { $0.name == "kind" })?.value.prefix(AppEventLimits.kindLength).trimmingSpaces() ?? ""
        let subject = query.last(where: { $0.name == "subject" })?.value.prefix(AppEventLimits.subjectLength).trimmingSpaces() ?? ""
        let size = AppEventLimits.pageSize
        let events = try await settings.appEvents.events(
            kind: kind.isEmpty ? nil : kind, subject: subject.isEmpty ? nil : subject, offset: (page - 1) * size, limit: size + 1)
        let shown = Array(events.prefix(size))
        if request.wantsJson {
            return try JsonBody(shown.map(AppEventJson.init)).makeResponse(for: request)
        }
        let link = { (page: Int) -> String in
            var parts = ["page=\(page)"]
            if !kind.isEmpty { parts.append("kind=" + PercentEncoding.encode(kind)) }
            if !subject.isEmpty { parts.append("subject=" + PercentEncoding.encode(subject)) }
            return request.url(path) + "?" + parts.joined(separator: "&")
        }
        var values: [String: Any] = [
            "title": "App events", "kind": kind, "subject": subject, "action": request.url(path),
            "events": shown.map { event -> [String: Any] in
                [
                    "user": event.username.isEmpty ? "nobody signed in" : event.username, "kind": event.kind, "subject": event.subject,
                    "detail": event.detail, "at": AccountTime.iso(event.at), "atText": AccountTime.shown(event.at),
                    "address": event.address, "browser": event.browser,
                ]
            },
            "auditLink": request.url(settings.auditPath),
        ]
        if events.count > size, page < AppEventLimits.pageLimit { values["olderLink"] = link(page + 1) }
        if page > 1 { values["newerLink"] = link(page - 1) }
        return try request.render("admin/app-events", values).makeResponse(for: request)
    }
}
