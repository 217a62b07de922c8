#if OpenIdConnect
import Foundation
import MicroAccounts
import MicroAuth
import MicroCore

/// The links on the admin's users page: each user's linked provider accounts (issuer,
/// subject, linked, last used) with Unlink, and for a user with none, a form that links a
/// subject (`POST PATH/links/unlink`, `POST PATH/links/link`, each checked as the users page's
/// own changes are).
struct IdentityLinkAdmin: Sendable {
    let settings: OpenIdConnect
    let links: any IdentityLinkListing

    /// The most links one page lists.
    static let pageLimit = 5000
    /// The longest subject an admin may type (OpenID Connect: 255 ASCII characters).
    static let maximumSubjectLength = 255

    func install(in app: App) {
        let links = links
        let settings = settings
        let unlinkPath = settings.path + "/links/unlink"
        let linkPath = settings.path + "/links/link"
        let section = UsersPageSection(title: "Single sign-on with \(settings.name)", userAdded: { request, username in
            // A link to a name the store did not hold was made for someone from outside the
            // store (the `any` mapping): that account is not the user now given the name.
            let dropped: [IdentityLink]
            do {
                dropped = try await links.unlinkAll(of: username)
            } catch {
                // Said, not swallowed: a link left under the name would make that account this user.
                request.logger.error("Cannot drop the single sign-on links left under \(username): \(error)")
                return "The links at \(settings.name) left under this name could not be checked: look below and unlink any before \(username) signs in."
            }
            guard !dropped.isEmpty else { return nil }
            for link in dropped {
                await request.recordAccountEvent(
                    OpenIdConnect.unlinkedEvent, of: username,
                    detail: "issuer=\(LogText.escape(link.identity.issuer, limit: 256)) subject=\(LogText.escape(link.identity.subject, limit: 256)) the name was given to a new user")
            }
            return "The name was linked to \(dropped.count == 1 ? "an account" : "\(dropped.count) accounts") at \(settings.name) from outside the store (subject \(dropped.prefix(3).map { LogText.escape($0.identity.subject, limit: 64) }.joined(separator: ", "))): unlinked, and their sessions ended."
        }) { _, usernames in
            var lines: [String: [UsersPageLine]] = [:]
            for link in try await links.links(of: usernames, limit: Self.pageLimit) {
                lines[link.username, default: []].append(UsersPageLine(
                    text: "\(link.identity.issuer), subject \(link.identity.subject): linked \(Self.day(link.linkedAt)), last used \(Self.day(link.lastUsedAt))",
                    button: UsersPageButton(label: "Unlink", action: unlinkPath, fields: ["issuer": link.identity.issuer, "subject": link.identity.subject])))
            }
            for username in usernames where lines[username] == nil {
                lines[username] = [UsersPageLine(
                    text: "Not linked.", button: UsersPageButton(label: "Link", action: linkPath, input: (name: "subject", label: "Subject (sub)")))]
            }
            return lines
        }
        app.addUsersPageSection(section)
        app.post(unlinkPath) { request -> String in try await unlink(request) }
        app.post(linkPath) { request -> String in try await link(request) }
    }

    private static func day(_ date: Date) -> String {
        String(date.ISO8601Format().prefix(10))
    }

    /// The user and the subject a form names: a 404 for a name no user can have, a 422 for a
    /// subject that is empty, too long or (typed, to link) holds controls. One to unlink is
    /// matched against the links as it is: a provider may send any `sub`, and each link made
    /// must be removable from the page.
    private func fields(_ request: Request, typed: Bool = true) throws -> (username: String, subject: String) {
        guard let username = try? Username.enforce(String((request.params["username"] ?? "").prefix(Authentication.maximumUsernameLength))) else {
            throw HttpError(.notFound, "There is no such user.")
        }
        let subject = request.params["subject"] ?? ""
        guard !subject.isEmpty, subject.utf8.count <= Self.maximumSubjectLength,
            !typed || !subject.unicodeScalars.contains(where: { $0.properties.generalCategory == .control || $0.properties.generalCategory == .format })
        else {
            throw HttpError(.unprocessableEntity, "A subject is 1 to \(Self.maximumSubjectLength) bytes, without control characters: the `sub` the provider sends for the person.")
        }
        return (username, subject)
    }

    func unlink(_ request: Request) async throws -> Never {
        let admin = try await request.authorizeUsersPageChange()
        let (username, subject) = try fields(request, typed: false)
        let issuer = String((request.params["issuer"] ?? settings.issuer).prefix(1024))
        let identity = ExternalIdentity(issuer: issuer, subject: subject)
        let removed: Bool
        do {
            let current = try await links.links(of: [username], limit: 100)
            removed = current.contains { $0.identity == identity }
            if removed { try await links.unlink(identity) }
        } catch {
            throw unavailable(request, error)
        }
        guard removed else { throw HttpError(.notFound, "\(username) is not linked to that subject.") }
        await request.recordAccountEvent(
            OpenIdConnect.unlinkedEvent, of: username,
            detail: "issuer=\(LogText.escape(issuer, limit: 256)) subject=\(LogText.escape(subject, limit: 256)) by \(admin.username)")
        request.flash[request.authenticationSettings?.flashKey ?? "notice"] =
            "\(username) is no longer linked to that account at \(settings.name). Sessions it signed in go on: end them with “End sessions” if they should not."
        try request.redirect(to: request.usersPagePath ?? "/")
    }

    func link(_ request: Request) async throws -> Never {
        let admin = try await request.authorizeUsersPageChange()
        let (username, subject) = try fields(request)
        guard let authentication = request.authenticationSettings else { throw HttpError(.notFound, "There is no such user.") }
        let identity = ExternalIdentity(issuer: settings.issuer, subject: subject)
        let linked: Bool
        do {
            guard try await authentication.users.find(username: username, using: authentication.hasher) != nil else {
                throw HttpError(.notFound, "There is no such user.")
            }
            linked = try await links.link(identity, to: username, now: Int64(request.settings.clock().timeIntervalSince1970))
        } catch {
            throw unavailable(request, error)
        }
        guard linked else {
            throw HttpError(.conflict, "\(username) is linked to another account at \(settings.name), or that account to another user: unlink it first.")
        }
        await request.recordAccountEvent(
            OpenIdConnect.linkedEvent, of: username,
            detail: "issuer=\(LogText.escape(settings.issuer, limit: 256)) subject=\(LogText.escape(subject, limit: 256)) claim=none by \(admin.username)")
        request.flash[request.authenticationSettings?.flashKey ?? "notice"] = "\(username) is linked to that account at \(settings.name)."
        try request.redirect(to: request.usersPagePath ?? "/")
    }

    private func unavailable(_ request: Request, _ error: any Error) -> any Error {
        if error is HttpError { return error }
        request.logger.error("The users page cannot change the identity links: \(error)")
        return HttpError(.serviceUnavailable, "The links cannot be changed right now. Please try again in a minute.", headers: ["Retry-After": "60"])
    }
}
#endif
