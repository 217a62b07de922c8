/// One of a user's `emails` (RFC 7643 4.1.2), kept as the provider sent it. The users table
/// keeps one address, the one mail goes to: the primary one, else the first.
struct ScimEmail: Sendable, Equatable, Codable {
    /// The most addresses a user keeps.
    static let maxCount = 16
    /// The longest `type` or `display`, in UTF-8 bytes.
    static let maxLabelBytes = 64

    var value: String
    var type: String?
    var primary: Bool
    var display: String?

    init(value: String, type: String? = nil, primary: Bool = false, display: String? = nil) {
        self.value = value
        self.type = type
        self.primary = primary
        self.display = display
    }

    /// The address `json` describes, or the refusal saying what is wrong with it.
    init(_ json: ScimJson) throws(ScimError) {
        guard case .object = json, let text = json["value"]?.string else { throw .invalidValue("An email is an object with a \"value\".") }
        guard let address = try ScimUser.checkedEmail(text) else { throw .invalidValue("An email's value is an address.") }
        value = address
        type = try Self.label(json["type"], "type")
        display = try Self.label(json["display"], "display")
        primary = try json["primary"].map { value throws(ScimError) in value.isNull ? false : try ScimUser.active(value) } ?? false
    }

    /// Sets the sub-attribute `name` (any case) to `value`, or with nil clears it.
    mutating func set(_ name: String, to value: ScimJson?) throws(ScimError) {
        let value = value?.isNull == true ? nil : value
        switch name.lowercased() {
        case "value":
            guard let text = value?.string, let address = try ScimUser.checkedEmail(text) else {
                throw .invalidValue("An email's value is an address.")
            }
            self.value = address
        case "type": type = try Self.label(value, "type")
        case "display": display = try Self.label(value, "display")
        case "primary": primary = try value.map { value throws(ScimError) in try ScimUser.active(value) } ?? false
        default: break
        }
    }

    /// Whether the address meets `filter` (`type eq "work"`, `value eq "…"`, `primary eq true`).
    func meets(_ filter: ScimFilter) -> Bool {
        filter.terms.allSatisfy { term in
            switch term.attribute {
            case "type": type?.lowercased() == term.value.lowercased()
            case "value": value.lowercased() == term.value.lowercased()
            case "primary": primary == (term.value.lowercased() == "true")
            case "display": display == term.value
            default: false
            }
        }
    }

    /// The value of the attribute.
    var json: ScimJson {
        var members: [(String, ScimJson)] = [("value", .string(value))]
        if let type { members.append(("type", .string(type))) }
        if let display { members.append(("display", .string(display))) }
        members.append(("primary", .bool(primary)))
        return .object(members)
    }

    /// The address mail goes to among `emails`: the primary one, else the first.
    static func chosen(_ emails: [ScimEmail]) -> String? {
        (emails.first { $0.primary } ?? emails.first)?.value
    }

    /// `emails` with at most one primary (RFC 7643 2.4): the last one marked, as the latest word.
    static func onePrimary(_ emails: [ScimEmail]) -> [ScimEmail] {
        guard let last = emails.lastIndex(where: \.primary) else { return emails }
        return emails.indices.map { index in
            var email = emails[index]
            email.primary = index == last
            return email
        }
    }

    /// A short label (`type`, `display`): a display text of at most ``maxLabelBytes``.
    private static func label(_ value: ScimJson?, _ name: String) throws(ScimError) -> String? {
        guard let value, !value.isNull else { return nil }
        guard let text = value.string, text.utf8.count <= maxLabelBytes else {
            throw .invalidValue("An email's \(name) is a text of at most \(maxLabelBytes) bytes.")
        }
        return text.isEmpty ? nil : try ScimUser.checkedName(text)
    }
}
