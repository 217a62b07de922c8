import Foundation
import MicroAuth
import MicroCore

/// The routes of ``Accounts``.
struct AccountRoutes {
    let service: AccountsService
    private var settings: Accounts { service.settings }

    func install(in app: App) {
        let prefix = settings.prefix
        app.get(prefix + "/?") { request in try index(request) }
        app.get(prefix + "/password/?") { request in try passwordPage(request, problem: nil) }
        app.post(prefix + "/password/?") { request in try await changePassword(request) }
        app.get(prefix + "/sessions/?") { request in try await sessions(request) }
        app.post(prefix + "/sessions/sign-out-others/?") { request in try await endOthers(request) }
        app.post(prefix + "/sessions/:id/sign-out/?") { request in try await end(request) }
        app.get(prefix + "/activity/?") { request in try await activity(request) }
        app.get(settings.auditPath + "/?") { request in try await audit(request) }
    }

    private func index(_ request: Request) throws -> Response {
        let user = try request.authenticate()
        return try page(request, "account/index", ["title": "Your account", "user": values(of: user)])
    }

    // MARK: Password

    private func store(_ request: Request) -> (any PasswordUpgradingUserStore)? {
        request.service(AuthenticationService.self)?.settings.users as? any PasswordUpgradingUserStore
    }

    private func passwordPage(_ request: Request, problem: (field: String, message: String)?) throws -> Response {
        let user = try request.authenticate()
        var values: [String: Any] = ["title": "Change your password", "user": values(of: user)]
        if store(request) == nil { values["readOnly"] = settings.readOnlyUsersMessage } else { values["canChange"] = true }
        if request.isPasswordChangeDue { values["changeDue"] = settings.passwordChangeDueMessage }
        guard let problem else { return try page(request, "account/password", values) }
        var errors = FieldErrors()
        errors.add(problem.field, problem.message)
        // Never a password back in the page: nothing else was typed.
        let error = FormError(errors, values: [], status: .unprocessableEntity)
        if request.wantsJson { throw error }
        return try request.render("account/password", values, form: error).makeResponse(for: request)
    }

    private func changePassword(_ request: Request) async throws -> Response {
        let user = try request.authenticate()
        guard let store = store(request), let authentication = request.service(AuthenticationService.self) else {
            throw HttpError(.forbidden, settings.readOnlyUsersMessage)
        }
        let current = request.params["current_password"] ?? ""
        let new = request.params["new_password"] ?? ""
        let confirmation = request.params["new_password_confirmation"] ?? ""
        // Checked as a sign-in is: the same throttle, so this form is no way around it.
        guard let stored = try await request.checkCredentials(username: user.username, password: current) else {
            return try passwordPage(request, problem: ("current_password", settings.wrongPasswordMessage))
        }
        if let problem = settings.passwordRules.problem(with: new, username: user.username) {
            return try passwordPage(request, problem: ("new_password", problem))
        }
        guard new == confirmation else { return try passwordPage(request, problem: ("new_password_confirmation", settings.confirmationMessage)) }
        // The password someone else set stays theirs too if kept: the change must change it.
        if stored.passwordChangeDue || request.isPasswordChangeDue, new == current {
            return try passwordPage(request, problem: ("new_password", settings.givenPasswordMessage))
        }
        let hasher = authentication.settings.hasher
        let cost = authentication.settings.passwordCost
        let hash = try await hasher.run { try Password.hash(new, cost: cost) }
        // The check may have re-hashed the old password at the configured cost: swap against
        // what the store holds now.
        let now = try await store.find(username: user.username, using: hasher)?.passwordHash ?? stored.passwordHash
        let replaced: Bool
        if let managed = store as? any ManagedUserStore {
            // A table also drops the mark of a password someone else set.
            replaced = try await managed.replaceOwnPasswordHash(of: user.username, now, with: hash)
        } else {
            replaced = try await store.replacePasswordHash(of: user.username, now, with: hash, using: hasher)
        }
        guard replaced else {
            throw HttpError(.conflict, "Your password was changed elsewhere meanwhile: sign in again.")
        }
        // This browser goes on under a new identity and the new stamp; every other session
        // holds the old stamp, which no longer matches, on every instance that reads the store.
        _ = try? await settings.sessions.removeAll(of: user.username, keeping: nil)
        request.session.regenerate()
        request.session.restart()
        request.keepSignedIn(as: StoredUser(user: stored.user, passwordHash: hash))
        await service.record(request, username: user.username, event: ActivityEvent.Kind.passwordChanged, detail: "")
        await service.relist(request, user: user)
        request.flash["notice"] = settings.passwordChangedMessage
        try request.redirect(to: settings.prefix)
    }

    // MARK: Sessions

    private func sessions(_ request: Request) async throws -> Response {
        let user = try request.authenticate()
        let current = AccountsService.entryId(of: request.session.id)
        let listed = try await service.liveSessions(of: user.username, request)
        if request.wantsJson {
            return try JsonBody(listed.map {
                SessionJson(
                    id: $0.entry.id, browser: $0.entry.browser, address: $0.entry.address, signedInAt: AccountTime.iso($0.entry.signedInAt),
                    lastSeenAt: AccountTime.iso($0.entry.lastSeenAt), current: $0.entry.id == current)
            }).makeResponse(for: request)
        }
        let entries: [[String: Any]] = listed.map { session in
            var entry: [String: Any] = [
                "id": session.entry.id, "browser": session.entry.browser, "userAgent": session.entry.userAgent,
                "address": session.entry.address, "signedInAt": AccountTime.iso(session.entry.signedInAt),
                "signedInText": AccountTime.shown(session.entry.signedInAt), "lastSeenAt": AccountTime.iso(session.entry.lastSeenAt),
                "lastSeenText": AccountTime.shown(session.entry.lastSeenAt),
                "signOutAction": request.url(settings.prefix + "/sessions/" + session.entry.id + "/sign-out"),
            ]
            if session.entry.id == current { entry["current"] = true }
            return entry
        }
        return try page(request, "account/sessions", [
            "title": "Your sessions", "sessions": entries, // Always offered: sessions the registry does not list (from before a restart of an
            // in-memory one) are ended too.
            "others": true,
            "signOutOthersAction": request.url(settings.prefix + "/sessions/sign-out-others"),
        ])
    }

    private func end(_ request: Request) async throws -> Response {
        let user = try request.authenticate()
        let id = request.params["id"] ?? ""
        guard id.utf8.count <= 64, let removed = try await settings.sessions.remove(id: id, of: user.username) else {
            throw HttpError(.notFound, "You have no such session.")
        }
        service.end(removed, request)
        await service.record(request, username: user.username, event: ActivityEvent.Kind.sessionEnded, detail: removed.entry.browser)
        if removed.entry.id == AccountsService.entryId(of: request.session.id) {
            request.signOut()
            try request.redirect(to: "/")
        }
        request.flash["notice"] = settings.sessionEndedMessage
        try request.redirect(to: settings.prefix + "/sessions")
    }

    private func endOthers(_ request: Request) async throws -> Response {
        let user = try request.authenticate()
        // Every session of the user, listed or not (a cookie from before a restart of an
        // in-memory registry is not): revoked by time, then this one re-keyed to go on.
        await request.endSessions(of: user.username)
        request.session.regenerate()
        request.session.restart()
        await service.relist(request, user: user)
        await service.record(request, username: user.username, event: ActivityEvent.Kind.sessionEnded, detail: "all others")
        request.flash["notice"] = settings.othersEndedMessage
        try request.redirect(to: settings.prefix + "/sessions")
    }

    // MARK: Activity

    private func activity(_ request: Request) async throws -> Response {
        let user = try request.authenticate()
        // Only this account's: events kept under the name from an account removed before are
        // older than all of these, so none of this account's is lost to the filter.
        let events = try await settings.activity.events(of: user.username, offset: 0, limit: ActivityLogLimits.pageSize)
            .filter { $0.accountEndedAt == nil }
        if request.wantsJson {
            return try JsonBody(events.map { EventJson($0, withUser: false) }).makeResponse(for: request)
        }
        return try page(request, "account/activity", ["title": "Your account's activity", "events": events.map(eventValues)])
    }

    private func audit(_ request: Request) async throws -> Response {
        try request.authorize(role: settings.adminRole)
        let paging = try request.paging(size: ActivityLogLimits.pageSize)
        let typed = request.params.query.last(where: { $0.name == "user" })?.value ?? ""
        let filter = typed.isEmpty ? nil : Username.key(String(typed.prefix(256)))
        let page = paging.page(try await settings.activity.events(of: filter, offset: paging.offset, limit: paging.limit))
        let shown = page.items
        if request.wantsJson {
            return try JsonBody(shown.map { EventJson($0, withUser: true) }).makeResponse(for: request)
        }
        var values: [String: Any] = [
            "title": "Audit", "events": shown.map(eventValues), "user": filter ?? "", "action": request.url(settings.auditPath),
            "appEventsLink": request.url(settings.auditPath + "/app"),
        ]
        // Only what there is, as in each event's values, where a nil would show its section.
        if let next = page.next { values["olderLink"] = next }
        if let previous = page.previous { values["newerLink"] = previous }
        if filter == nil {
            values["unknownLink"] = request.url(settings.auditPath) + "?user=" + PercentEncoding.encode(ActivityEvent.unknownUser)
        }
        return try self.page(request, "admin/audit", values)
    }

    // MARK: Pieces

    private func page(_ request: Request, _ template: String, _ values: [String: Any]) throws -> Response {
        try request.render(template, values).makeResponse(for: request)
    }

    private func values(of user: User) -> [String: Any] {
        ["username": user.username, "name": user.name, "roles": user.roles.joined(separator: ", ")]
    }

    private func eventValues(_ event: ActivityEvent) -> [String: Any] {
        var values: [String: Any] = [
            "user": event.username, "event": event.event, "at": AccountTime.iso(event.at), "atText": AccountTime.shown(event.at),
            // Controls and invisible characters as visible escapes, as on the app events page.
            "address": event.address, "browser": ControlEscapingLogHandler.escape(event.browser),
            "detail": ControlEscapingLogHandler.escape(event.detail),
        ]
        if let ended = event.accountEndedAt {
            values["accountEnded"] = AccountTime.iso(ended)
            values["accountEndedText"] = AccountTime.shown(ended)
        }
        return values
    }
}
