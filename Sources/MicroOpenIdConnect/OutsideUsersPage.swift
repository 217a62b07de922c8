#if OpenIdConnect
import Foundation
import MicroAccounts
import MicroAuth
import MicroCore

/// The admin's page of the people single sign-on let in from outside the store (the `any`
/// mapping), which the users page cannot list (`GET PATH/outside`): each linked name with
/// *End sessions* (`POST PATH/outside/sign-out`) and *Unlink*, checked as the users page's
/// own changes are.
struct OutsideUsersPage: Sendable {
    let settings: OpenIdConnect
    let links: any IdentityLinkListing

    /// The most links read for the page.
    static let limit = 500

    var path: String { settings.path + "/outside" }

    func install(in app: App) {
        app.get(path) { request in try await page(request) }
        app.post(path + "/sign-out") { request -> String in try await endSessions(request) }
    }

    func page(_ request: Request) async throws -> Response {
        try request.authorizeUsersPage()
        guard let authentication = request.authenticationSettings else { throw HttpError(.notFound, "This app has no user store.") }
        var outside: [IdentityLink] = []
        do {
            for link in try await links.allLinks(limit: Self.limit)
            where try await authentication.users.find(username: link.username, using: authentication.hasher) == nil {
                outside.append(link)
            }
        } catch {
            request.logger.error("The page of users from outside the store cannot read the links: \(error)")
            throw HttpError(.serviceUnavailable, "The links cannot be read right now. Please try again in a minute.", headers: ["Retry-After": "60"])
        }
        let csrf = "<input type=\"hidden\" name=\"_csrf\" value=\"\(Html.escape(request.csrfToken))\">"
        let rows = outside.map { link -> String in
            let name = Html.escape(link.username)
            let fields = csrf + "<input type=\"hidden\" name=\"username\" value=\"\(name)\">"
            return """
                <tr data-user="\(name)"><td>\(name)</td><td>\(Html.escape(link.identity.issuer))</td><td>\(Html.escape(link.identity.subject))</td>\
                <td>\(String(link.linkedAt.ISO8601Format().prefix(10)))</td><td>\(String(link.lastUsedAt.ISO8601Format().prefix(10)))</td><td>\
                <form class="inline" method="post" action="\(Html.escape(request.url(path + "/sign-out")))">\(fields)<button type="submit">End sessions</button></form> \
                <form class="inline" method="post" action="\(Html.escape(request.url(settings.path + "/links/unlink")))">\(fields)\
                <input type="hidden" name="issuer" value="\(Html.escape(link.identity.issuer))"><input type="hidden" name="subject" value="\(Html.escape(link.identity.subject))">\
                <button type="submit">Unlink</button></form></td></tr>
                """
        }.joined(separator: "\n")
        let title = "Users from outside the store (\(Html.escape(settings.name)))"
        return Response(contentType: "text/html; charset=utf-8", body: """
            <!DOCTYPE html>
            <html lang="en"><head><meta charset="utf-8">
            <meta name="viewport" content="width=device-width, initial-scale=1">
            <title>\(title)</title></head>
            <body><main><h1>\(title)</h1>
            <p>People single sign-on let in whom the user store does not hold, by the name linked to them (the first \(Self.limit) links).</p>
            <p>Changes here need your password confirmed on the <a href="\(Html.escape(request.url(request.usersPagePath ?? "/")))">users page</a> in the last few minutes.</p>
            <table class="users"><thead><tr><th scope="col">Username</th><th scope="col">Issuer</th><th scope="col">Subject</th><th scope="col">Linked</th><th scope="col">Last used</th><th scope="col">Manage</th></tr></thead>
            <tbody>
            \(rows)
            </tbody></table>
            </main></body></html>

            """)
    }

    func endSessions(_ request: Request) async throws -> Never {
        let admin = try await request.authorizeUsersPageChange()
        guard let username = try? Username.enforce(String((request.params["username"] ?? "").prefix(Authentication.maximumUsernameLength))) else {
            throw HttpError(.notFound, "There is no such user.")
        }
        await request.endSessions(of: username)
        await request.recordAccountEvent(ActivityEvent.Kind.sessionsEnded, of: username, detail: "by \(admin.username)")
        request.flash[request.authenticationSettings?.flashKey ?? "notice"] = "Every session of \(username) has been ended."
        try request.redirect(to: path)
    }
}
#endif
