/// PATCH on a user (RFC 7644 3.5.2), as Entra and Okta send it.
extension ScimUser {
    /// Applies `operation`; attributes Micro does not keep are accepted and left alone, as
    /// providers send many. A `userName` is taken as given: the caller decides whether the
    /// user may take it.
    mutating func apply(_ operation: ScimPatchOperation) throws(ScimError) {
        guard let path = operation.path else {
            guard let value = operation.value, case .object(let members) = value else {
                throw .invalidSyntax("An operation without a path has an object of attributes as its value.")
            }
            for (name, value) in members {
                try apply(ScimPatchOperation(kind: operation.kind, path: ScimPatchOperation.parse(path: name), value: value))
            }
            return
        }
        let removing = operation.kind == .remove
        let value = removing ? nil : operation.value.flatMap { $0.isNull ? nil : $0 }
        switch (path.attribute, path.subAttribute) {
        case ("active", nil):
            if removing { throw .mutability("active cannot be removed; replace it with false.") }
            active = try value.map { value throws(ScimError) in try Self.active(value) } ?? active
        case ("displayname", nil):
            displayName = try value.map { value throws(ScimError) -> String? in
                guard let text = value.string else { throw .invalidValue("displayName is a string.") }
                return text.isEmpty ? nil : try Self.checkedName(text)
            } ?? nil
        case ("name", nil):
            if let value {
                var merged = name ?? ScimName()
                try merged.merge(value)
                name = merged.isEmpty ? nil : merged
            } else {
                name = nil
            }
        case ("name", let part?):
            var changed = name ?? ScimName()
            try changed.set(part, to: value)
            name = changed.isEmpty ? nil : changed
        case ("username", nil):
            if removing { throw .mutability("userName cannot be removed.") }
            guard let text = value?.string else { throw .invalidValue("userName is a string.") }
            userName = try Self.enforced(text)
        case ("emails", let part):
            try patchEmails(operation.kind, filter: path.filter, part: part, value)
        case ("externalid", nil):
            externalId = try value.flatMap(Self.externalId)
        case ("id", _), ("meta", _), ("groups", _), ("schemas", _):
            throw .mutability("\(path.attribute) is read-only: groups change through /Groups.")
        default:
            break
        }
    }

    /// `emails`, `emails.value` or `emails[type eq "work"].value`: added to, replaced or
    /// removed. A filter that matches no address, in an `add` or `replace` naming only a
    /// `type`, adds one of that type (primary when it is the only one), as Entra expects of
    /// `emails[type eq "work"].value`.
    private mutating func patchEmails(_ kind: ScimPatchOperation.Kind, filter text: String?, part: String?, _ value: ScimJson?) throws(ScimError) {
        var list = emails
        if let text {
            let filter: ScimFilter
            do throws(ScimError) { filter = try ScimFilter(text) } catch { throw .invalidPath("The filter of emails[\(text)] is not one Micro reads.") }
            guard filter.terms.allSatisfy({ ["type", "value", "primary", "display"].contains($0.attribute) }) else {
                throw .invalidPath("An address is picked by its type, value, primary or display.")
            }
            var matching = list.indices.filter { list[$0].meets(filter) }
            if matching.isEmpty, kind != .remove, let type = filter.value(of: "type"), filter.terms.count == 1 {
                list.append(ScimEmail(value: "", type: type, primary: list.isEmpty))
                matching = [list.count - 1]
            }
            if matching.isEmpty { throw .noTarget("No address meets emails[\(text)].") }
            for index in matching.reversed() {
                if kind == .remove, part == nil || part == "value" {
                    list.remove(at: index)
                } else if let part {
                    try list[index].set(part, to: value)
                } else if let value {
                    list[index] = try ScimEmail(Self.merged(list[index].json, value))
                }
            }
        } else if let part {
            if list.isEmpty {
                guard kind != .remove else { return }
                list = [ScimEmail(value: "", primary: true)]
            }
            let index = list.firstIndex(where: \.primary) ?? 0
            if kind == .remove, part == "value" { list.remove(at: index) } else { try list[index].set(part, to: value) }
        } else if kind == .add {
            for email in try Self.emails(in: value) {
                if let same = list.firstIndex(where: { $0.value.lowercased() == email.value.lowercased() }) { list[same] = email } else { list.append(email) }
            }
        } else {
            list = try Self.emails(in: value)
        }
        guard list.count <= ScimEmail.maxCount else { throw .invalidValue("A user has at most \(ScimEmail.maxCount) emails.") }
        guard list.allSatisfy({ !$0.value.isEmpty }) else { throw .invalidValue("An email needs a value.") }
        emails = ScimEmail.onePrimary(list)
    }

    /// `change`'s members over `base`'s: a complex value replaced in part (RFC 7644 3.5.2.3).
    private static func merged(_ base: ScimJson, _ change: ScimJson) -> ScimJson {
        guard case .object(var members) = base, case .object(let changed) = change else { return change }
        for (name, value) in changed {
            if let index = members.firstIndex(where: { $0.0.lowercased() == name.lowercased() }) { members[index].1 = value } else { members.append((name, value)) }
        }
        return .object(members)
    }
}
