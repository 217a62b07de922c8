import MicroAuth
import MicroCore

/// What the endpoints say of themselves (RFC 7644 4, RFC 7643 5-7): the features supported,
/// the two resource types, and the schemas of the attributes Micro keeps.
struct ScimDiscovery: Sendable {
    let service: ScimService

    private static let listSchema = "urn:ietf:params:scim:api:messages:2.0:ListResponse"

    func serviceProviderConfig(_ request: Request) -> Response {
        let supported: (Bool) -> ScimJson = { .object([("supported", .bool($0))]) }
        return ScimResponse.make(.ok, .object([
            ("schemas", .array([.string("urn:ietf:params:scim:schemas:core:2.0:ServiceProviderConfig")])),
            ("documentationUri", .string("https://www.rfc-editor.org/rfc/rfc7644")),
            ("patch", supported(true)),
            ("bulk", .object([("supported", .bool(false)), ("maxOperations", .int(0)), ("maxPayloadSize", .int(0))])),
            ("filter", .object([("supported", .bool(true)), ("maxResults", .int(service.settings.maxCount))])),
            ("changePassword", supported(false)),
            ("sort", supported(false)),
            ("etag", supported(false)),
            ("authenticationSchemes", .array([.object([
                ("type", .string("oauthbearertoken")), ("name", .string("Bearer token")),
                ("description", .string("A token made by the scim-token command, sent as Authorization: Bearer.")), ("primary", .bool(true)),
            ])])),
            ("meta", .object([("resourceType", .string("ServiceProviderConfig")), ("location", .string(service.base(request) + "/ServiceProviderConfig"))])),
        ]))
    }

    private func resourceType(_ name: String, endpoint: String, schema: String, base: String) -> ScimJson {
        .object([
            ("schemas", .array([.string("urn:ietf:params:scim:schemas:core:2.0:ResourceType")])),
            ("id", .string(name)), ("name", .string(name)), ("endpoint", .string(endpoint)), ("description", .string(name)),
            ("schema", .string(schema)), ("schemaExtensions", .array([])),
            ("meta", .object([("resourceType", .string("ResourceType")), ("location", .string(base + "/ResourceTypes/" + name))])),
        ])
    }

    private func resourceTypeList(_ base: String) -> [ScimJson] {
        [
            resourceType("User", endpoint: "/Users", schema: ScimUser.schema, base: base),
            resourceType("Group", endpoint: "/Groups", schema: ScimGroup.schema, base: base),
        ]
    }

    func resourceTypes(_ request: Request) -> Response {
        let list = resourceTypeList(service.base(request))
        return ScimResponse.list(list, total: list.count, startIndex: 1)
    }

    func resourceType(_ request: Request) throws -> Response {
        let id = request.params["id"] ?? ""
        guard let found = resourceTypeList(service.base(request)).first(where: { $0["id"]?.string == id }) else {
            throw ScimError.notFound("No resource type \(ScimError.quoted(id, limit: 64)).")
        }
        return ScimResponse.make(.ok, found)
    }

    // MARK: Schemas

    private static func attribute(
        _ name: String, type: String = "string", multiValued: Bool = false, required: Bool = false, caseExact: Bool = false,
        mutability: String = "readWrite", returned: String = "default", uniqueness: String = "none", references: [String] = [],
        canonical: [String] = [], sub: [ScimJson] = []
    ) -> ScimJson {
        var members: [(String, ScimJson)] = [
            ("name", .string(name)), ("type", .string(type)), ("multiValued", .bool(multiValued)), ("description", .string(name)),
            ("required", .bool(required)), ("caseExact", .bool(caseExact)), ("mutability", .string(mutability)),
            ("returned", .string(returned)), ("uniqueness", .string(uniqueness)),
        ]
        if !canonical.isEmpty { members.append(("canonicalValues", .array(canonical.map { .string($0) }))) }
        if !references.isEmpty { members.append(("referenceTypes", .array(references.map { .string($0) }))) }
        if !sub.isEmpty { members.append(("subAttributes", .array(sub))) }
        return .object(members)
    }

    private func schemaList(_ base: String) -> [ScimJson] {
        let user: [ScimJson] = [
            Self.attribute("externalId", caseExact: true),
            Self.attribute("userName", required: true, uniqueness: "server"),
            Self.attribute("name", type: "complex", sub: ScimName.parts.map { Self.attribute($0.name) }),
            Self.attribute("displayName"),
            // Required: Micro always knows whether a user may sign in, and removing the answer
            // would neither disable nor enable anyone. A new user sent without it is enabled,
            // as providers that leave it out expect.
            Self.attribute("active", type: "boolean", required: true),
            Self.attribute("emails", type: "complex", multiValued: true, sub: [
                Self.attribute("value"), Self.attribute("type", canonical: ["work", "home", "other"]), Self.attribute("primary", type: "boolean"),
                Self.attribute("display"),
            ]),
            Self.attribute("groups", type: "complex", multiValued: true, mutability: "readOnly", sub: [
                Self.attribute("value", mutability: "readOnly"), Self.attribute("display", mutability: "readOnly"),
                Self.attribute("$ref", type: "reference", mutability: "readOnly", references: ["Group"]),
            ]),
        ]
        let group: [ScimJson] = [
            Self.attribute("externalId", caseExact: true),
            Self.attribute("displayName", required: true, uniqueness: "server"),
            Self.attribute("members", type: "complex", multiValued: true, sub: [
                Self.attribute("value", mutability: "immutable"), Self.attribute("display", mutability: "readOnly"),
                Self.attribute("$ref", type: "reference", mutability: "immutable", references: ["User"]),
                Self.attribute("type", mutability: "immutable", canonical: ["User"]),
            ]),
        ]
        func schema(_ id: String, _ name: String, _ attributes: [ScimJson]) -> ScimJson {
            .object([
                ("schemas", .array([.string("urn:ietf:params:scim:schemas:core:2.0:Schema")])),
                ("id", .string(id)), ("name", .string(name)), ("description", .string(name)), ("attributes", .array(attributes)),
                ("meta", .object([("resourceType", .string("Schema")), ("location", .string(base + "/Schemas/" + id))])),
            ])
        }
        return [schema(ScimUser.schema, "User", user), schema(ScimGroup.schema, "Group", group)]
    }

    func schemas(_ request: Request) -> Response {
        let list = schemaList(service.base(request))
        return ScimResponse.list(list, total: list.count, startIndex: 1)
    }

    func schema(_ request: Request) throws -> Response {
        let id = request.params["id"] ?? ""
        guard let found = schemaList(service.base(request)).first(where: { $0["id"]?.string == id }) else {
            throw ScimError.notFound("No schema \(ScimError.quoted(id, limit: 128)).")
        }
        return ScimResponse.make(.ok, found)
    }
}
