import Foundation
import MicroAuth
import MicroCore

/// The users page's API token forms: revoke one of a user's live tokens, or all of them.
extension UserAdminRoutes {
    func revokeToken(_ request: Request) async throws -> Response {
        let (admin, _) = try begin(request)
        let username = try target(request)
        let id = request.params["id"] ?? ""
        let missing = HttpError(.notFound, texts.noSuchToken.replacingOccurrences(of: "NAME", with: username))
        guard let service = request.service(ApiTokenService.self) else { throw HttpError(.notFound, texts.noTokens) }
        guard id.utf8.count <= 64 else { throw missing }
        let revoked: ApiToken?
        do { revoked = try await service.store.revoke(id: id, of: username, now: request.session.now) } catch { throw unavailable(request, error) }
        guard let revoked else { throw missing }
        service.forget(digest: revoked.digest)
        return try await done(
            request, admin: admin, user: username, event: ActivityEvent.Kind.tokenRevoked, flash: texts.tokenRevoked, detail: revoked.name)
    }

    func revokeTokens(_ request: Request) async throws -> Response {
        let (admin, _) = try begin(request)
        let username = try target(request)
        guard let service = request.service(ApiTokenService.self) else { throw HttpError(.notFound, texts.noTokens) }
        do { try await service.revokeAll(of: username, now: request.session.now) } catch { throw unavailable(request, error) }
        return try await done(request, admin: admin, user: username, event: ActivityEvent.Kind.tokenRevoked, flash: texts.tokensRevoked, detail: "all")
    }
}
