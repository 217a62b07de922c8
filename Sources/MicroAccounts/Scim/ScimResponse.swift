import MicroCore

/// The answers of the SCIM endpoints: `application/scim+json` (RFC 7644 3.1), never cached,
/// since they hold who may sign in.
enum ScimResponse {
    static let contentType = "application/scim+json; charset=utf-8"

    static func make(_ status: HttpStatus, _ body: ScimJson, location: String? = nil) -> Response {
        var response = Response(status: status, contentType: contentType, body: body.text)
        response.headers.replaceOrAdd(name: "Cache-Control", value: "no-store")
        if let location { response.headers.replaceOrAdd(name: "Location", value: location) }
        return response
    }

    /// A list (RFC 7644 3.4.2): `resources` of `total`, from `startIndex`.
    static func list(_ resources: [ScimJson], total: Int, startIndex: Int) -> Response {
        make(.ok, .object([
            ("schemas", .array([.string("urn:ietf:params:scim:api:messages:2.0:ListResponse")])),
            ("totalResults", .int(total)), ("startIndex", .int(startIndex)), ("itemsPerPage", .int(resources.count)),
            ("Resources", .array(resources)),
        ]))
    }
}
