/// A user's `name` as SCIM sends it (RFC 7643 4.1.1): its parts, each a display text under the
/// users page's rule, kept as they came so that a provider reads back what it wrote.
struct ScimName: Sendable, Equatable, Codable {
    var formatted: String?
    var familyName: String?
    var givenName: String?
    var middleName: String?
    var honorificPrefix: String?
    var honorificSuffix: String?

    /// The parts by their SCIM names, in the order the RFC lists them.
    static let parts: [(name: String, key: WritableKeyPath<ScimName, String?> & Sendable)] = [
        ("formatted", \.formatted), ("familyName", \.familyName), ("givenName", \.givenName), ("middleName", \.middleName),
        ("honorificPrefix", \.honorificPrefix), ("honorificSuffix", \.honorificSuffix),
    ]

    init(formatted: String? = nil) {
        self.formatted = formatted
    }

    /// Whether no part is set.
    var isEmpty: Bool { Self.parts.allSatisfy { self[keyPath: $0.key] == nil } }

    /// The name pages show: `formatted`, else the given, middle and family names.
    var shown: String? {
        if let formatted { return formatted }
        let joined = [givenName, middleName, familyName].compactMap { $0 }.joined(separator: " ")
        return joined.isEmpty ? nil : joined
    }

    /// Sets, or with nil clears, the part `name` (any case); throws for a value pages could
    /// not show. A part SCIM does not define is left alone, as other unknown attributes are.
    mutating func set(_ name: String, to value: ScimJson?) throws(ScimError) {
        guard let part = Self.parts.first(where: { $0.name.lowercased() == name.lowercased() }) else { return }
        guard let value, !value.isNull else {
            self[keyPath: part.key] = nil
            return
        }
        guard let text = value.string else { throw .invalidValue("name.\(part.name) is a string.") }
        self[keyPath: part.key] = text.isEmpty ? nil : try ScimUser.checkedName(text)
    }

    /// Sets each part `value` (an object) names, leaving the others: RFC 7644 3.5.2.1 and
    /// 3.5.2.3 merge a complex value into the one there.
    mutating func merge(_ value: ScimJson) throws(ScimError) {
        guard case .object(let members) = value else { throw .invalidValue("name is an object of its parts.") }
        for (name, part) in members { try set(name, to: part) }
    }

    /// The name `value` describes (an object, or null for none).
    static func read(_ value: ScimJson?) throws(ScimError) -> ScimName? {
        guard let value, !value.isNull else { return nil }
        var name = ScimName()
        try name.merge(value)
        return name.isEmpty ? nil : name
    }

    /// The value of the attribute.
    var json: ScimJson {
        .object(Self.parts.compactMap { part in self[keyPath: part.key].map { (part.name, ScimJson.string($0)) } })
    }
}
