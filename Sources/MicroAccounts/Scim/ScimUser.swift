import MicroAuth
import MicroCore

/// A user as SCIM sees them (RFC 7643 4.1): `id` and `userName` are the username in its
/// enforced form (``/MicroAuth/Username``), which is the key of the users table and never changes for a
/// user (a rename is refused); `displayName` the name pages show; one address in `emails`;
/// `active` false while disabled; `groups` their roles. Attributes Micro does not keep
/// (`name`'s parts, `title`...) are read only to make a display name; `externalId` is kept
/// beside the table.
struct ScimUser: Sendable, Equatable {
    static let schema = "urn:ietf:params:scim:schemas:core:2.0:User"

    var userName: String
    var displayName: String?
    var email: String?
    var active: Bool
    var roles: [String] = []
    /// The client's own id for the user, kept beside the table (``DatabaseScimStore``).
    var externalId: String?

    /// The user as a store lists them.
    init(_ user: ManagedUser, externalId: String? = nil) {
        self.externalId = externalId
        userName = user.user.username
        displayName = user.user.name
        email = user.user.email
        active = !user.isDisabled
        roles = user.user.roles
    }

    init(userName: String, displayName: String?, email: String?, active: Bool) {
        self.userName = userName
        self.displayName = displayName
        self.email = email
        self.active = active
    }

    /// The resource, with its `meta.location` under `base` (the SCIM endpoints' absolute URL).
    func json(base: String) -> ScimJson {
        var members: [(String, ScimJson)] = [
            ("schemas", .array([.string(Self.schema)])), ("id", .string(userName)), ("userName", .string(userName)),
        ]
        if let externalId { members.append(("externalId", .string(externalId))) }
        if let displayName {
            members.append(("displayName", .string(displayName)))
            members.append(("name", .object([("formatted", .string(displayName))])))
        }
        if let email {
            members.append(("emails", .array([.object([("value", .string(email)), ("type", .string("work")), ("primary", .bool(true))])])))
        }
        members.append(("active", .bool(active)))
        if !roles.isEmpty {
            members.append(("groups", .array(roles.map { role in
                .object([("value", .string(role)), ("display", .string(role)), ("$ref", .string(base + "/Groups/" + role))])
            })))
        }
        members.append(("meta", .object([("resourceType", .string("User")), ("location", .string(base + "/Users/" + Self.pathSegment(userName)))])))
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
        displayName = try Self.displayName(in: body)
        email = try Self.email(in: body["emails"])
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

    /// `displayName`, else `name.formatted`, else `name.givenName` and `name.familyName`.
    static func displayName(in body: ScimJson) throws(ScimError) -> String? {
        var text = body["displayName"]?.string
        if text == nil || text?.isEmpty == true, let name = body["name"] {
            text = name["formatted"]?.string
            if text == nil || text?.isEmpty == true {
                text = [name["givenName"]?.string, name["familyName"]?.string].compactMap { $0 }.filter { !$0.isEmpty }.joined(separator: " ")
            }
        }
        guard let text, !text.isEmpty else { return nil }
        return try checkedName(text)
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

    /// The primary address of `emails` (else the first); nil for none.
    static func email(in emails: ScimJson?) throws(ScimError) -> String? {
        guard let emails, !emails.isNull else { return nil }
        guard let list = emails.array else { throw .invalidValue("emails is a list of {\"value\": address} objects.") }
        guard list.count <= 16 else { throw .invalidValue("At most 16 emails are read.") }
        let chosen = list.first { if case .bool(true) = $0["primary"] { true } else { false } } ?? list.first
        guard let chosen else { return nil }
        guard let value = chosen["value"]?.string else { throw .invalidValue("An email is an object with a \"value\".") }
        return try checkedEmail(value)
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
