import MicroAuth
import MicroCore

/// A user as SCIM sees them (RFC 7643 4.1): `userName` is the username in its enforced form
/// (``/MicroAuth/Username``), the key of the users table, and `id` the same until the user is
/// renamed, when it stays what it was (``ScimIdTable``); `active` false while
/// disabled; `groups` their roles. `displayName`, `name`'s parts and every address are kept as
/// the provider sent them (``ScimProfile``), while the users table keeps the name pages show
/// and the address mail goes to; `externalId` is kept beside the table. Other attributes
/// (`title`...) are accepted and not kept.
struct ScimUser: Sendable, Equatable {
    static let schema = "urn:ietf:params:scim:schemas:core:2.0:User"

    var userName: String
    /// The SCIM id: the username, or the one the user had before a rename.
    var id: String
    var displayName: String?
    var name: ScimName?
    var emails: [ScimEmail] = []
    var active: Bool
    var roles: [String] = []
    /// The ids of the groups of `roles` that have one of their own (renamed), by role.
    var groupIds: [String: String] = [:]
    /// The client's own id for the user, kept beside the table (``DatabaseScimStore``).
    var externalId: String?

    /// The name pages show: `displayName`, else the one `name` makes; nil for the username's.
    var shownName: String? { displayName ?? name?.shown }
    /// The address mail goes to.
    var email: String? { ScimEmail.chosen(emails) }
    /// What is kept of it beside the users table.
    var profile: ScimProfile { ScimProfile(displayName: displayName, name: name, emails: emails, tableName: shownName, tableEmail: email) }

    /// The user as a store lists them, with what SCIM kept of them: where the table was
    /// changed since (on the users page), the table's name and address are answered instead.
    init(_ user: ManagedUser, id: String? = nil, profile: ScimProfile? = nil, externalId: String? = nil, groupIds: [String: String] = [:]) {
        self.externalId = externalId
        userName = user.user.username
        self.id = id ?? user.user.username
        self.groupIds = groupIds
        if let profile, profile.holdsName(of: user.user) {
            displayName = profile.displayName
            name = profile.name
        } else {
            displayName = user.user.name
            name = ScimName(formatted: user.user.name)
        }
        if let profile, profile.holdsEmail(of: user.user) {
            emails = profile.emails
        } else {
            emails = user.user.email.map { [ScimEmail(value: $0, type: "work", primary: true)] } ?? []
        }
        active = !user.isDisabled
        roles = user.user.roles
    }

    /// The resource, with its `meta.location` under `base` (the SCIM endpoints' absolute URL).
    func json(base: String) -> ScimJson {
        var members: [(String, ScimJson)] = [
            ("schemas", .array([.string(Self.schema)])), ("id", .string(id)), ("userName", .string(userName)),
        ]
        if let externalId { members.append(("externalId", .string(externalId))) }
        if let displayName { members.append(("displayName", .string(displayName))) }
        if let name, !name.isEmpty { members.append(("name", name.json)) }
        if !emails.isEmpty { members.append(("emails", .array(emails.map(\.json)))) }
        members.append(("active", .bool(active)))
        if !roles.isEmpty {
            members.append(("groups", .array(roles.map { role in
                let id = groupIds[role] ?? role
                return .object([("value", .string(id)), ("display", .string(role)), ("$ref", .string(base + "/Groups/" + Self.pathSegment(id)))])
            })))
        }
        members.append(("meta", .object([("resourceType", .string("User")), ("location", .string(base + "/Users/" + Self.pathSegment(id)))])))
        return .object(members)
    }

    /// `id` as a path segment: `@` stays as it is (RFC 3986 allows it there), so that a client
    /// that takes the id from the end of `meta.location` reads the id.
    static func pathSegment(_ id: String) -> String {
        PercentEncoding.encode(id) { PercentEncoding.isUnreserved($0) || $0 == UInt8(ascii: "@") }
    }

    /// The user a POST or PUT body describes; throws the refusal of a body that is not one.
    init(body: ScimJson) throws(ScimError) {
        guard case .object = body else { throw .invalidSyntax("A user is a JSON object.") }
        guard let typed = body["userName"]?.string, !typed.isEmpty else { throw .invalidValue("A user needs a userName.") }
        userName = try Self.enforced(typed)
        id = userName
        displayName = try body["displayName"].flatMap { value throws(ScimError) -> String? in
            guard !value.isNull else { return nil }
            guard let text = value.string else { throw .invalidValue("displayName is a string.") }
            return text.isEmpty ? nil : try Self.checkedName(text)
        }
        name = try ScimName.read(body["name"])
        emails = try Self.emails(in: body["emails"])
        // Missing or null: enabled, for a new user; a PUT keeps the current state instead.
        active = try body["active"].flatMap { value throws(ScimError) in value.isNull ? nil : try Self.active(value) } ?? true
        externalId = try body["externalId"].flatMap(Self.externalId)
    }

    /// `value` as an `externalId` (nil for `null`), or the refusal of one that is no short text.
    static func externalId(_ value: ScimJson) throws(ScimError) -> String? {
        if value.isNull { return nil }
        guard let text = value.string, (1...256).contains(text.utf8.count),
            !text.unicodeScalars.contains(where: { $0.properties.generalCategory == .control || $0.properties.generalCategory == .format })
        else { throw .invalidValue("externalId is a text of 1 to 256 bytes, without control characters.") }
        return text
    }

    /// The enforced form of `typed`, or the refusal naming the rule it breaks.
    static func enforced(_ typed: String) throws(ScimError) -> String {
        guard typed.utf8.count <= 256 else { throw .invalidValue("A userName is at most 256 bytes.") }
        do throws(UsernameError) {
            return try Username.enforce(typed)
        } catch {
            throw .invalidValue("userName \(error.description)")
        }
    }

    /// `text` as a display name, or the refusal of one that could disguise itself in a page or
    /// log: the users page's rule (``UserAdminRoutes/isAcceptable(name:)``), so that SCIM keeps
    /// no name an admin could not type.
    static func checkedName(_ text: String) throws(ScimError) -> String {
        guard UserAdminRoutes.isAcceptable(name: text) else {
            throw .invalidValue(
                "A displayName is at most \(UserAdminRoutes.maximumNameLength) characters, without control, text-direction or invisible characters.")
        }
        return text
    }

    /// The addresses `value` lists (one object is read as a list of it), with at most one
    /// primary; none for null.
    static func emails(in value: ScimJson?) throws(ScimError) -> [ScimEmail] {
        guard let value, !value.isNull else { return [] }
        let list = value.array ?? [value]
        guard list.count <= ScimEmail.maxCount else { throw .invalidValue("A user has at most \(ScimEmail.maxCount) emails.") }
        var emails: [ScimEmail] = []
        for item in list { emails.append(try ScimEmail(item)) }
        return ScimEmail.onePrimary(emails)
    }

    /// `text` as a store keeps an address, or the refusal saying what is wrong with it.
    static func checkedEmail(_ text: String) throws(ScimError) -> String? {
        guard text.utf8.count <= 320 else { throw .invalidValue("An email address is at most 320 bytes.") }
        do throws(MailAddressError) {
            return try User.checkedEmail(text)
        } catch {
            throw .invalidValue("The email address is refused: \(error).")
        }
    }

    /// `active` as a boolean, or as the text `"True"`/`"False"` that Entra sends.
    static func active(_ value: ScimJson) throws(ScimError) -> Bool {
        switch value {
        case .bool(let flag): return flag
        case .string(let text) where text.lowercased() == "true": return true
        case .string(let text) where text.lowercased() == "false": return false
        default: throw .invalidValue("active is true or false.")
        }
    }
}
