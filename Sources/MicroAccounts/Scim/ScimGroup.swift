import MicroAuth
import MicroCore

/// A group as SCIM sees it (RFC 7643 4.2): a role. Its `displayName` is the role's name, its
/// `id` the same until the group is renamed, when it stays what it was (``ScimIdTable``); its
/// `members` are the users who hold it. A provider's group name is taken as a role name
/// once its ASCII letters are lowercased (`Editors` is `editors`); one that is still no role
/// name (`Sales Team`: a space) is refused as `invalidValue`.
struct ScimGroup: Sendable, Equatable {
    static let schema = "urn:ietf:params:scim:schemas:core:2.0:Group"
    /// The most members one request names.
    static let maxMembers = 1000

    var role: String
    /// The usernames of the members.
    var members: [String]
    /// The SCIM id.
    var id: String
    /// The members' ids where they have one of their own (renamed), by username.
    var memberIds: [String: String] = [:]
    /// The client's own id for the group, kept beside the roles (``DatabaseScimStore``).
    var externalId: String? = nil

    init(role: String, members: [String], id: String? = nil, memberIds: [String: String] = [:], externalId: String? = nil) {
        self.role = role
        self.members = members
        self.id = id ?? role
        self.memberIds = memberIds
        self.externalId = externalId
    }

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
            ("schemas", .array([.string(Self.schema)])), ("id", .string(id)), ("displayName", .string(role)),
        ]
        if let externalId { members.append(("externalId", .string(externalId))) }
        if withMembers {
            members.append(("members", .array(self.members.map { name in
                let id = memberIds[name] ?? name
                return .object([("value", .string(id)), ("$ref", .string(base + "/Users/" + ScimUser.pathSegment(id))), ("type", .string("User"))])
            })))
        }
        members.append(("meta", .object([("resourceType", .string("Group")), ("location", .string(base + "/Groups/" + ScimUser.pathSegment(id)))])))
        return .object(members)
    }

    /// The user ids a `members` value names (a list of `{"value": id}`), each at most
    /// ``ScimIdTable/maxIdLength`` bytes; throws the refusal of a value that is not such a list.
    static func memberIds(_ value: ScimJson?) throws(ScimError) -> [String] {
        guard let value, !value.isNull else { return [] }
        let list: [ScimJson]
        if let array = value.array { list = array } else if case .object = value { list = [value] } else {
            throw .invalidValue("members is a list of {\"value\": user id} objects.")
        }
        guard list.count <= maxMembers else { throw .invalidValue("A request names at most \(maxMembers) members.") }
        var names: [String] = []
        for member in list {
            guard let id = member["value"]?.string, id.utf8.count <= ScimIdTable.maxIdLength else {
                throw .invalidValue("A member is an object with a \"value\": the user's id, at most \(ScimIdTable.maxIdLength) bytes.")
            }
            names.append(id)
        }
        return names
    }
}
