import MicroAuth
import MicroCore

/// A group's PATCH operations (RFC 7644 3.5.2), and the members they name by their SCIM ids.
extension ScimRoutes {
    /// ``memberNames(_:)``, each of them checked among `users`.
    // Not inlined: inlined into `createGroup`, the optimizer's coroutine splitting crashes
    // (swift-frontend, release builds).
    @inline(never)
    func memberNames(_ ids: [String], among users: [ManagedUser]) async throws -> Set<String> {
        let names = try await memberNames(ids)
        try Self.check(names, among: users)
        return names
    }

    /// Applies one PATCH operation to what is wished of `group`.
    func apply(_ operation: ScimPatchOperation, to wish: inout GroupWish, _ group: ScimGroup) async throws {
        guard let path = operation.path else {
            guard let value = operation.value, case .object(let attributes) = value else {
                throw ScimError.invalidSyntax("An operation without a path has an object of attributes as its value.")
            }
            for (name, value) in attributes {
                try await apply(ScimPatchOperation(kind: operation.kind, path: ScimPatchOperation.parse(path: name), value: value), to: &wish, group)
            }
            return
        }
        switch path.attribute {
        case "members":
            if let filter = path.filter {
                // `members[value eq "id"]`: the one member it names.
                let parsed: ScimFilter
                do { parsed = try ScimFilter(filter) } catch { throw ScimError.invalidPath("A members filter is value eq \"id\".") }
                guard parsed.terms.count == 1, let id = parsed.value(of: "value") else { throw ScimError.invalidPath("A members filter is value eq \"id\".") }
                guard operation.kind == .remove else { throw ScimError.invalidPath("A members filter only removes a member.") }
                if let name = try await service.store.username(ofId: id) { wish.members.remove(name) }
                return
            }
            let ids = try ScimGroup.memberIds(operation.value)
            switch operation.kind {
            case .add:
                let named = try await memberNames(ids)
                wish.members.formUnion(named)
            case .replace:
                wish.members = try await memberNames(ids)
            case .remove:
                // An id that names nobody is no member to take away.
                let named = try await service.store.usernames(ofIds: ids)
                if operation.value == nil { wish.members.removeAll() } else { wish.members.subtract(named.values) }
            }
        case "displayname":
            guard operation.kind != .remove, let name = operation.value?.string else { throw ScimError.mutability("A group's displayName cannot be removed.") }
            wish.role = try ScimGroup.role(named: name)
        case "externalid":
            wish.externalId = operation.kind == .remove ? nil : try ScimUser.externalId(operation.value ?? .null)
        case "id":
            // Okta's replace sends the group's own id beside its members: no change, so taken.
            guard operation.kind != .remove, let id = operation.value?.string, id == group.id else {
                throw ScimError.mutability("id is read-only.")
            }
        case "meta", "schemas":
            throw ScimError.mutability("\(path.attribute) is read-only.")
        default:
            break
        }
    }

    /// The usernames of the users `ids` name, or the refusal of an id that names nobody.
    func memberNames(_ ids: [String]) async throws -> Set<String> {
        let named = try await service.store.usernames(ofIds: ids)
        var names = Set<String>()
        for id in ids {
            guard let name = named[id] else { throw ScimError.invalidValue("No user \(ScimError.quoted(id, limit: 256)): a member is a user's id.") }
            names.insert(name)
        }
        return names
    }
}
