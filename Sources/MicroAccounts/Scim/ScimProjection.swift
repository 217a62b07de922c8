import MicroCore

/// What a client asked to see of each resource (RFC 7644 3.4.2.5): only `attributes`, or all
/// but `excludedAttributes`; `schemas` and `id` are always returned. Names are read in any
/// case, with or without the core schema's URN, and `name.givenName` names a sub-attribute.
struct ScimProjection: Sendable {
    private let included: Set<String>?
    private let excluded: Set<String>

    /// The projection of two comma-separated lists, as the query string gives them.
    init(attributes: String?, excludedAttributes: String?) {
        included = attributes.map(Self.names).flatMap { $0.isEmpty ? nil : $0 }
        excluded = excludedAttributes.map(Self.names) ?? []
    }

    /// Whether `attribute` (top-level, lowercase) is left out entirely.
    func leavesOut(_ attribute: String) -> Bool {
        if excluded.contains(attribute) { return true }
        guard let included else { return false }
        return !included.contains { $0 == attribute || $0.hasPrefix(attribute + ".") }
    }

    /// `resource` with only what was asked for.
    func apply(_ resource: ScimJson) -> ScimJson {
        guard included != nil || !excluded.isEmpty, case .object(let members) = resource else { return resource }
        var kept: [(String, ScimJson)] = []
        for (name, value) in members {
            let key = name.lowercased()
            if key == "schemas" || key == "id" {
                kept.append((name, value))
                continue
            }
            if leavesOut(key) { continue }
            // A sub-attribute asked for or left out: the rest of the complex attribute.
            if case .object(let subs) = value {
                let wanted = included?.filter { $0.hasPrefix(key + ".") }.map { String($0.dropFirst(key.count + 1)) } ?? []
                let unwanted = excluded.filter { $0.hasPrefix(key + ".") }.map { String($0.dropFirst(key.count + 1)) }
                let includesWhole = included?.contains(key) ?? true
                let filtered = subs.filter { sub in
                    let subKey = sub.0.lowercased()
                    return !unwanted.contains(subKey) && (includesWhole || wanted.contains(subKey))
                }
                kept.append((name, .object(filtered)))
                continue
            }
            kept.append((name, value))
        }
        return .object(kept)
    }

    private static func names(_ list: String) -> Set<String> {
        var names = Set<String>()
        for part in list.split(separator: ",").prefix(64) {
            var name = part.trimmingSpaces().lowercased()
            for urn in [ScimUser.schema, ScimGroup.schema] where name.hasPrefix(urn.lowercased() + ":") {
                name = String(name.dropFirst(urn.count + 1))
            }
            if !name.isEmpty { names.insert(name) }
        }
        return names
    }
}
