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
        route(app, .GET, "/Users") { request, _ in try await listUsers(request, ScimQuery(request)) }
        route(app, .POST, "/Users/.search") { request, _ in try await listUsers(request, search(request)) }
        route(app, .POST, "/Users") { request, client in try await createUser(request, client) }
        route(app, .GET, "/Users/:id") { request, _ in try await getUser(request) }
        route(app, .PUT, "/Users/:id") { request, client in try await replaceUser(request, client) }
        route(app, .PATCH, "/Users/:id") { request, client in try await patchUser(request, client) }
        route(app, .DELETE, "/Users/:id") { request, client in try await deleteUser(request, client) }
        route(app, .GET, "/Groups") { request, _ in try await listGroups(request, ScimQuery(request)) }
        route(app, .POST, "/Groups/.search") { request, _ in try await listGroups(request, search(request)) }
        route(app, .POST, "/Groups") { request, client in try await createGroup(request, client) }
        route(app, .GET, "/Groups/:id") { request, _ in try await getGroup(request) }
        route(app, .PUT, "/Groups/:id") { request, client in try await replaceGroup(request, client) }
        route(app, .PATCH, "/Groups/:id") { request, client in try await patchGroup(request, client) }
        route(app, .DELETE, "/Groups/:id") { request, client in try await deleteGroup(request, client) }
        // Searching users and groups at once is not offered (RFC 7644 3.4.3 allows a 501).
        route(app, .POST, "/.search") { _, _ in throw ScimError(.notImplemented, nil, "Search /Users/.search or /Groups/.search.") }
        // The methods an endpoint does not take: 405, not 404 (RFC 7644 3.12).
        let allowed: [(String, [HttpMethod])] = [
            ("/ServiceProviderConfig", [.GET]), ("/ResourceTypes", [.GET]), ("/ResourceTypes/:id", [.GET]), ("/Schemas", [.GET]),
            ("/Schemas/:id", [.GET]), ("/Users", [.GET, .POST]), ("/Users/:id", [.GET, .PUT, .PATCH, .DELETE]), ("/Groups", [.GET, .POST]),
            ("/Groups/:id", [.GET, .PUT, .PATCH, .DELETE]),
        ]
        for (pattern, methods) in allowed {
            for method in [HttpMethod.GET, .POST, .PUT, .PATCH, .DELETE] where !methods.contains(method) {
                route(app, method, pattern) { request, _ in
                    throw ScimError(.methodNotAllowed, nil, "\(request.method) is not taken here; \(methods.map { "\($0)" }.joined(separator: ", ")) is.")
                }
            }
        }
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

    /// The search a `POST .search` body asks.
    func search(_ request: Request) throws(ScimError) -> ScimQuery {
        try ScimQuery(search: body(request))
    }
}
