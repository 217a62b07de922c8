import MicroAuth
import MicroCore

/// A refusal as RFC 7644 3.12 writes it: the status, the `scimType` the RFC names for it (none
/// for most statuses other than 400), and a sentence for the person reading the provider's log.
struct ScimError: Error, Sendable {
    let status: HttpStatus
    let scimType: String?
    let detail: String

    init(_ status: HttpStatus, _ scimType: String? = nil, _ detail: String) {
        self.status = status
        self.scimType = scimType
        self.detail = detail
    }

    static let schema = "urn:ietf:params:scim:api:messages:2.0:Error"

    static func invalidFilter(_ detail: String) -> ScimError { ScimError(.badRequest, "invalidFilter", detail) }
    static func invalidSyntax(_ detail: String) -> ScimError { ScimError(.badRequest, "invalidSyntax", detail) }
    static func invalidValue(_ detail: String) -> ScimError { ScimError(.badRequest, "invalidValue", detail) }
    static func invalidPath(_ detail: String) -> ScimError { ScimError(.badRequest, "invalidPath", detail) }
    static func noTarget(_ detail: String) -> ScimError { ScimError(.badRequest, "noTarget", detail) }
    static func mutability(_ detail: String) -> ScimError { ScimError(.badRequest, "mutability", detail) }
    static func uniqueness(_ detail: String) -> ScimError { ScimError(.conflict, "uniqueness", detail) }
    static func notFound(_ detail: String) -> ScimError { ScimError(.notFound, nil, detail) }

    /// `text` as a message quotes a client's value: cut to `limit` Unicode scalars (not
    /// characters, which combining marks can make any length) and shown as names are.
    static func quoted(_ text: String, limit: Int) -> String {
        Username.shown(String(String.UnicodeScalarView(text.unicodeScalars.prefix(limit))))
    }

    /// The answer: `application/scim+json`, never cached.
    var response: Response {
        var members: [(String, ScimJson)] = [("schemas", .array([.string(Self.schema)])), ("status", .string(String(status.code)))]
        if let scimType { members.append(("scimType", .string(scimType))) }
        members.append(("detail", .string(detail)))
        var response = ScimResponse.make(status, .object(members))
        if status == .unauthorized {
            response.headers.replaceOrAdd(name: "WWW-Authenticate", value: "Bearer realm=\"SCIM\"")
        }
        return response
    }
}
