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
        let paging = try request.paging(size: AppEventLimits.pageSize, maxPage: AppEventLimits.pageLimit)
        // Filters longer than any field are cut to it: they can match nothing longer.
        let kind = query.last(where: { $0.name == "kind" })?.value.prefix(AppEventLimits.kindLength).trimmingSpaces() ?? ""
        let subject = query.last(where: { $0.name == "subject" })?.value.prefix(AppEventLimits.subjectLength).trimmingSpaces() ?? ""
        let page = paging.page(
            try await settings.appEvents.events(
                kind: kind.isEmpty ? nil : kind, subject: subject.isEmpty ? nil : subject, offset: paging.offset, limit: paging.limit))
        let shown = page.items
        if request.wantsJson {
            return try JsonBody(shown.map(AppEventJson.init)).makeResponse(for: request)
        }
        var values: [String: Any] = [
            "title": "App events", "kind": kind, "subject": subject, "action": request.url(path),
            // The app's text is shown with its controls and invisible characters as visible
            // escapes (as the log writes them): a right-to-left override in a subject would
            // otherwise reverse the rest of its row.
            "events": shown.map { event -> [String: Any] in
                [
                    "user": event.username.isEmpty ? "nobody signed in" : event.username, "kind": event.kind,
                    "subject": ControlEscapingLogHandler.escape(event.subject), "detail": ControlEscapingLogHandler.escape(event.detail),
                    "at": AccountTime.iso(event.at), "atText": AccountTime.shown(event.at),
                    "address": event.address, "browser": ControlEscapingLogHandler.escape(event.browser),
                ]
            },
            "auditLink": request.url(settings.auditPath),
        ]
        // Only the links there are: a nil would show its section.
        if let next = page.next { values["olderLink"] = next }
        if let previous = page.previous { values["newerLink"] = previous }
        return try request.render("admin/app-events", values).makeResponse(for: request)
    }
}
