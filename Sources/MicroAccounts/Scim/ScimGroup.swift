import MicroAuth
import MicroCore

/// A group as SCIM sees it (RFC 7643 4.2): a role. Its `id` and `displayName` are the role's
/// name, its `members` the users who hold it. A provider's group name is taken as a role name
/// once its ASCII letters are lowercased (`Editors` is `editors`); one that is still no role
/// name (`Sales Team`: a space) is refused as `invalidValue`.
struct ScimGroup: Sendable, Equatable {
    static let schema = "urn:ietf:params:scim:schemas:core:2.0:Group"
    /// The most members one request names.
    static let maxMembers = 1000

    var role: String
    var members: [String]
    /// The client's own id for the group, kept beside the roles (``DatabaseScimStore``).
    var externalId: String? = nil

    /// The role `displayName` names, or the refusal saying why it can be none.
    static func role(named displayName: String) throws(ScimError) -> String {
        let folded = String(decoding: displayName.utf8.map { (0x41...0x5A).contains($0) ? $0 + 0x20 : $0 }, as: UTF8.self)
        if let problem = User.problem(withRole: folded) {
            throw .invalidValue("A group is a role: \(problem).")
        }
        return folded
    }

    /// The resource; without `members` when the client asked to leave them out.
    func json(base: String, withMembers: Bool) -> ScimJson {
        var members: [(String, ScimJson)] = [
            ("schemas", .array([.string(Self.schema)])), ("id", .string(role)), ("displayName", .string(role)),
        ]
        if let externalId { members.append(("externalId", .string(externalId))) }
        if withMembers {
            members.append(("members", .array(self.members.map { name in
                .object([
                    ("value", .string(name)), ("$ref", .string(base + "/Users/" + ScimUser.pathSegment(name))), ("type", .string("User")),
                ])
            })))
        }
        members.append(("meta", .object([("resourceType", .string("Group")), ("location", .string(base + "/Groups/" + role))])))
        return .object(members)
    }

    /// The usernames a `members` value names (a list of `{"value": id}`), each in its
    /// enforced form; throws the refusal of a value that is not such a list.
    static func memberNames(_ value: ScimJson?) throws(ScimError) -> [String] {
        guard let value, !value.isNull else { return [] }
        let list: [ScimJson]
        if let array = value.array { list = array } else if case .object = value { list = [value] } else {
            throw .invalidValue("members is a list of {\"value\": user id} objects.")
        }
        guard list.count <= maxMembers else { throw .invalidValue("A request names at most \(maxMembers) members.") }
        var names: [String] = []
        for member in list {
            guard let id = member["value"]?.string else { throw .invalidValue("A member is an object with a \"value\": the user's id.") }
            names.append(Username.key(id))
        }
        return names
    }
}
