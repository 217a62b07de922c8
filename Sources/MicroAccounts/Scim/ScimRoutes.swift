import Foundation
import MicroAuth
import MicroCore

/// The SCIM endpoints (RFC 7644): discovery, `Users` and `Groups`, and a SCIM 404 for any other
/// path under ``ScimProvisioning/path``.
struct ScimRoutes: Sendable {
    let service: ScimService

    var path: String { service.settings.path }

    func install(in app: App) {
        let discovery = ScimDiscovery(service: service)
        route(app, .GET, "/ServiceProviderConfig") { request, _ in discovery.serviceProviderConfig(request) }
        route(app, .GET, "/ResourceTypes") { request, _ in discovery.resourceTypes(request) }
        route(app, .GET, "/ResourceTypes/:id") { request, _ in try discovery.resourceType(request) }
        route(app, .GET, "/Schemas") { request, _ in discovery.schemas(request) }
        route(app, .GET, "/Schemas/:id") { request, _ in try discovery.schema(request) }
        route(app, .GET, "/Users") { request, client in try await listUsers(request) }
        route(app, .POST, "/Users") { request, client in try await createUser(request, client) }
        route(app, .GET, "/Users/:id") { request, _ in try await getUser(request) }
        route(app, .PUT, "/Users/:id") { request, client in try await replaceUser(request, client) }
        route(app, .PATCH, "/Users/:id") { request, client in try await patchUser(request, client) }
        route(app, .DELETE, "/Users/:id") { request, client in try await deleteUser(request, client) }
        route(app, .GET, "/Groups") { request, _ in try await listGroups(request) }
        route(app, .POST, "/Groups") { request, client in try await createGroup(request, client) }
        route(app, .GET, "/Groups/:id") { request, _ in try await getGroup(request) }
        route(app, .PUT, "/Groups/:id") { request, client in try await replaceGroup(request, client) }
        route(app, .PATCH, "/Groups/:id") { request, client in try await patchGroup(request, client) }
        route(app, .DELETE, "/Groups/:id") { request, client in try await deleteGroup(request, client) }
        for method in [HttpMethod.GET, .POST, .PUT, .PATCH, .DELETE] {
            for pattern in ["", "/*"] {
                route(app, method, pattern) { request, _ in throw ScimError.notFound("No SCIM endpoint \(request.method) \(request.path).") }
            }
        }
    }

    /// Adds `handle` at `pattern` under the endpoints' path, behind the token check.
    private func route(
        _ app: App, _ method: HttpMethod, _ pattern: String, _ handle: @escaping @Sendable (Request, ScimClient) async throws -> Response
    ) {
        let service = service
        app.on(method, path + pattern) { request in await service.answer(request) { client in try await handle(request, client) } }
    }

    // MARK: What every endpoint reads

    /// The JSON body of a POST, PUT or PATCH: `application/scim+json` or `application/json`
    /// (else 415), at most ``ScimProvisioning/bodyLimit`` bytes (else 413).
    func body(_ request: Request) throws(ScimError) -> ScimJson {
        let type = request.headers.first(name: "Content-Type")?.split(separator: ";").first?.trimmingSpaces().lowercased()
        guard type == "application/scim+json" || type == "application/json" else {
            throw ScimError(.unsupportedMediaType, nil, "Send the body as application/scim+json or application/json.")
        }
        guard request.body.readableBytes <= service.settings.bodyLimit else {
            throw ScimError(.payloadTooLarge, nil, "A request body is at most \(service.settings.bodyLimit) bytes.")
        }
        guard let json = ScimJson.parse(request.body.readableBytesView) else { throw .invalidSyntax("The body is not JSON.") }
        return json
    }

    /// The last value of the query parameter `name`.
    func query(_ request: Request, _ name: String) -> String? {
        request.params.query.last { $0.name.lowercased() == name.lowercased() }?.value
    }

    /// `startIndex` (from 1) and `count` (at most ``ScimProvisioning/maxCount``) of a list.
    func page(_ request: Request) throws(ScimError) -> (start: Int, count: Int) {
        func number(_ name: String) throws(ScimError) -> Int? {
            guard let text = query(request, name) else { return nil }
            guard text.utf8.count <= 12, let value = Int(text) else { throw .invalidValue("\(name) is a whole number.") }
            return value
        }
        let start = max(1, try number("startIndex") ?? 1)
        let count = min(service.settings.maxCount, max(0, try number("count") ?? service.settings.maxCount))
        return (start, count)
    }

    /// The filter of a list, if any.
    func filter(_ request: Request) throws(ScimError) -> ScimFilter? {
        guard let text = query(request, "filter"), !text.trimmingSpaces().isEmpty else { return nil }
        return try ScimFilter(text)
    }

    /// Whether the client asked to leave `attribute` out (`excludedAttributes`).
    func excludes(_ request: Request, _ attribute: String) -> Bool {
        guard let list = query(request, "excludedAttributes") else { return false }
        return list.split(separator: ",").contains { $0.trimmingSpaces().lowercased() == attribute.lowercased() }
    }
}
