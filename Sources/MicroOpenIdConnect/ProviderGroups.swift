#if OpenIdConnect
import Foundation
import MicroAccounts
import MicroAuth
import MicroCore

/// What the provider's roles claim decides at every single sign-on:
/// ``OpenIdConnect/requiredGroups`` (who may come in at all) and ``OpenIdConnect/roleSync``
/// (the roles a store user has here).
struct ProviderGroups: Sendable {
    let settings: OpenIdConnect

    /// The claim's values as roles (folded to lowercase, bounded), or nil when the token does
    /// not carry the claim.
    func roles(_ claims: IdTokenClaims) -> [String]? {
        claims.strings[settings.rolesClaim].map(User.roles(fromGroups:))
    }

    /// Refuses (`403`, a `sign_in_failed` event, nobody signed in) a person whose roles claim
    /// holds none of the required groups, or who has no roles claim while roles are synced.
    func check(_ request: Request, _ claims: IdTokenClaims) async throws {
        if !settings.requiredGroups.isEmpty {
            // The groups as sent, not only those that are role names here: a group's name
            // may hold a space or a slash.
            let required = Set(settings.requiredGroups.map { $0.lowercased() })
            let sent = Set((claims.strings[settings.rolesClaim] ?? []).prefix(1024).map { $0.lowercased() })
            guard !required.isDisjoint(with: sent) else {
                try await refuse(
                    request, claims, why: "not in a required group (\(settings.requiredGroups.joined(separator: ", ")))",
                    shown: "your account at the identity provider is not in a group allowed here. Ask an administrator to add you.")
            }
        }
        if settings.roleSync {
            // A token without the claim, or whose groups are none of them role names here
            // (Keycloak's full paths, one comma-joined string), must never wipe a user's roles.
            let sent = claims.strings[settings.rolesClaim]
            let kept = roles(claims) ?? []
            if sent == nil || (kept.isEmpty && sent?.isEmpty == false) {
                let why = sent == nil
                    ? "the ID token has no '\(LogText.escape(settings.rolesClaim, limit: 100))' claim, and roles are synced from it"
                    : "none of the groups in '\(LogText.escape(settings.rolesClaim, limit: 100))' is a role name here (\(LogText.escape((sent ?? []).prefix(5).joined(separator: ", "), limit: 200)))"
                try await refuse(request, claims, why: why, shown: "the identity provider did not send groups this app can use. Ask an administrator to look at the app's log.")
            }
        }
    }

    private func refuse(_ request: Request, _ claims: IdTokenClaims, why: String, shown: String) async throws -> Never {
        let subject = "subject \(LogText.escape(claims.subject)) at \(LogText.escape(claims.issuer))"
        let name = (try? await settings.links.username(linkedTo: claims.identity))
            ?? (try? OpenIdConnectUserMapping.candidate(claims, by: settings.linkBy))?.name
        await request.recordAccountEvent(
            ActivityEvent.Kind.signInFailed, of: name ?? ActivityEvent.unknownUser,
            detail: "single sign-on refused: \(why) (\(subject))")
        request.logger.notice("Single sign-on refused: \(subject) is \(why)")
        throw OpenIdConnectError.notAllowed(shown).httpError
    }

    /// With ``OpenIdConnect/roleSync``: gives the store's user `roles` when theirs differ,
    /// ends their other sessions as a roles change on the users page does, records it, and
    /// returns the user as the store now holds them. A user from outside the store (the `any`
    /// mapping) already has the claim's roles, and is returned as given.
    func sync(_ request: Request, _ signedIn: OpenIdConnectUserMapping.Result, roles: [String]) async throws -> OpenIdConnectUserMapping.Result {
        guard let authentication = request.authenticationSettings else { return signedIn }
        let username = signedIn.user.username
        let hasher = authentication.hasher
        let stored: StoredUser?
        do { stored = try await authentication.users.find(username: username, using: hasher) } catch { throw unavailable(request, error) }
        // A disabled user is refused at sign-in; their roles are not the provider's to write.
        guard let stored, !stored.isDisabled, stored.user.roles.sorted() != roles else { return signedIn }
        guard let store = authentication.users as? any ManagedUserStore else {
            request.logger.error("Single sign-on cannot sync the roles of \(username): the user store cannot be changed (roles are synced only for users in a table)")
            throw HttpError(.serviceUnavailable, "Single sign-on is unavailable right now. Please try again in a minute.", headers: ["Retry-After": "30"])
        }
        let change: UserChange
        do {
            change = try await store.setRoles(of: username, to: roles, keepingOne: request.usersPageAdminRole ?? "admin")
        } catch {
            throw unavailable(request, error)
        }
        switch change {
        case .done:
            break
        case .noSuchUser:
            throw OpenIdConnectUserMapping.unmatched.httpError
        case .lastAdmin:
            request.logger.error("Single sign-on refused \(username): the provider's groups take the admin role from the last enabled admin")
            throw OpenIdConnectError.notAllowed(
                "your groups at the identity provider would take the admin role from the last admin here. Ask an administrator.").httpError
        }
        await request.endSessions(of: username)
        await request.recordAccountEvent(
            ActivityEvent.Kind.rolesChanged, of: username,
            detail: "\(roles.isEmpty ? "none" : roles.joined(separator: " ")) by single sign-on from \(LogText.escape(settings.issuer, limit: 256))")
        let updated: StoredUser?
        do { updated = try await authentication.users.find(username: username, using: hasher) } catch { throw unavailable(request, error) }
        guard let updated else { throw OpenIdConnectUserMapping.unmatched.httpError }
        var result = signedIn
        result.user = updated.user
        result.credentialStamp = CredentialStamp(updated)
        return result
    }

    private func unavailable(_ request: Request, _ error: any Error) -> any Error {
        if error is HttpError { return error }
        request.logger.error("Single sign-on cannot read or change the user store: \(error)")
        return HttpError(.serviceUnavailable, "Single sign-on is unavailable right now. Please try again in a minute.", headers: ["Retry-After": "30"])
    }
}
#endif
