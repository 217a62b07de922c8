import MicroAuth
import MicroCore

/// `Groups`: a group is a role; its members are the users who hold it.
extension ScimRoutes {
    func listGroups(_ request: Request, _ query: ScimQuery) async throws -> Response {
        let (start, count) = try query.page(maxCount: service.settings.maxCount)
        let users = try await service.users(request).managedUsers()
        var roles = Set(users.flatMap(\.user.roles))
        roles.formUnion(try await service.store.groups())
        if let filter = try query.parsedFilter() {
            for term in filter.terms where term.attribute != "displayname" && term.attribute != "id" {
                throw ScimError.invalidFilter("Groups are filtered by displayName or id (eq).")
            }
            roles = roles.filter { role in filter.terms.allSatisfy { (try? ScimGroup.role(named: $0.value)) == role } }
        }
        let sorted = roles.sorted()
        let projection = query.projection
        let withMembers = !projection.leavesOut("members")
        let page = Array(sorted.dropFirst(start - 1).prefix(count))
        let external = try await service.store.externalIds(of: "Group", page)
        let shown = page.map { role in
            projection.apply(
                ScimGroup(role: role, members: Self.holders(of: role, in: users), externalId: external[role]).json(
                    base: service.base(request), withMembers: withMembers))
        }
        return ScimResponse.list(Array(shown), total: sorted.count, startIndex: start)
    }

    private static func holders(of role: String, in users: [ManagedUser]) -> [String] {
        users.filter { $0.user.roles.contains(role) }.map(\.user.username).sorted()
    }

    /// The group the path's id names, with every user (for their roles), or 404.
    private func targetGroup(_ request: Request) async throws -> (group: ScimGroup, users: [ManagedUser]) {
        let id = request.params["id"] ?? ""
        let users = try await service.users(request).managedUsers()
        guard User.problem(withRole: id) == nil else { throw ScimError.notFound("No group \(ScimError.quoted(id, limit: 64)).") }
        let members = Self.holders(of: id, in: users)
        let kept = try await service.store.hasGroup(id)
        guard !members.isEmpty || kept else { throw ScimError.notFound("No group \(id).") }
        return (ScimGroup(role: id, members: members, externalId: try await service.store.externalId(of: "Group", id)), users)
    }

    private func answer(_ request: Request, _ group: ScimGroup, status: HttpStatus = .ok) -> Response {
        let base = service.base(request)
        let projection = ScimQuery(request).projection
        return ScimResponse.make(
            status, projection.apply(group.json(base: base, withMembers: !projection.leavesOut("members"))), location: status == .created ? base + "/Groups/" + group.role : nil)
    }

    func createGroup(_ request: Request, _ client: ScimClient) async throws -> Response {
        let json = try body(request)
        guard let displayName = json["displayName"]?.string else { throw ScimError.invalidValue("A group needs a displayName.") }
        let role = try ScimGroup.role(named: displayName)
        let members = try ScimGroup.memberNames(json["members"])
        let users = try await service.users(request).managedUsers()
        let kept = try await service.store.hasGroup(role)
        if !Self.holders(of: role, in: users).isEmpty || kept {
            throw ScimError.uniqueness("A group \(role) exists.")
        }
        try Self.check(Set(members), among: users)
        try await service.store.addGroup(role, now: request.session.now)
        let externalId = try json["externalId"].flatMap(ScimUser.externalId)
        try await service.store.setExternalId(externalId, of: "Group", role)
        var group = try await setMembers(of: role, to: Set(members), users, request, client)
        group.externalId = externalId
        return answer(request, group, status: .created)
    }

    func getGroup(_ request: Request) async throws -> Response {
        answer(request, try await targetGroup(request).group)
    }

    func replaceGroup(_ request: Request, _ client: ScimClient) async throws -> Response {
        let json = try body(request)
        let (group, users) = try await targetGroup(request)
        if let displayName = json["displayName"]?.string, try ScimGroup.role(named: displayName) != group.role {
            throw ScimError.mutability("A group's displayName is its role's name, which cannot change.")
        }
        let members = try ScimGroup.memberNames(json["members"])
        let externalId = try json["externalId"].flatMap(ScimUser.externalId)
        var replaced = try await setMembers(of: group.role, to: Set(members), users, request, client)
        if externalId != group.externalId { try await service.store.setExternalId(externalId, of: "Group", group.role) }
        replaced.externalId = externalId
        return answer(request, replaced)
    }

    func patchGroup(_ request: Request, _ client: ScimClient) async throws -> Response {
        let operations = try ScimPatchOperation.operations(in: body(request))
        let (group, users) = try await targetGroup(request)
        var members = Set(group.members)
        var externalId = group.externalId
        for operation in operations { try apply(operation, to: &members, externalId: &externalId, group) }
        var patched = try await setMembers(of: group.role, to: members, users, request, client)
        if externalId != group.externalId { try await service.store.setExternalId(externalId, of: "Group", group.role) }
        patched.externalId = externalId
        return answer(request, patched)
    }

    func deleteGroup(_ request: Request, _ client: ScimClient) async throws -> Response {
        let (group, users) = try await targetGroup(request)
        _ = try await setMembers(of: group.role, to: [], users, request, client)
        try await service.store.removeGroup(group.role)
        try await service.store.setExternalId(nil, of: "Group", group.role)
        return Response(status: .noContent)
    }

    /// Applies one PATCH operation to a group's members.
    private func apply(
        _ operation: ScimPatchOperation, to members: inout Set<String>, externalId: inout String?, _ group: ScimGroup
    ) throws(ScimError) {
        guard let path = operation.path else {
            guard let value = operation.value, case .object(let attributes) = value else {
                throw .invalidSyntax("An operation without a path has an object of attributes as its value.")
            }
            for (name, value) in attributes {
                try apply(
                    ScimPatchOperation(kind: operation.kind, path: ScimPatchOperation.parse(path: name), value: value), to: &members,
                    externalId: &externalId, group)
            }
            return
        }
        switch path.attribute {
        case "members":
            if let filter = path.filter {
                // `members[value eq "ann"]`: the one member it names.
                let parsed: ScimFilter
                do { parsed = try ScimFilter(filter) } catch { throw .invalidPath("A members filter is value eq \"id\".") }
                guard parsed.terms.count == 1, let id = parsed.value(of: "value") else { throw .invalidPath("A members filter is value eq \"id\".") }
                guard operation.kind == .remove else { throw .invalidPath("A members filter only removes a member.") }
                members.remove(Username.key(id))
                return
            }
            let named = try ScimGroup.memberNames(operation.value)
            switch operation.kind {
            case .add: members.formUnion(named)
            case .replace: members = Set(named)
            case .remove: if operation.value == nil { members.removeAll() } else { members.subtract(named) }
            }
        case "displayname":
            guard operation.kind != .remove, let name = operation.value?.string, try ScimGroup.role(named: name) == group.role else {
                throw .mutability("A group's displayName is its role's name, which cannot change.")
            }
        case "externalid":
            externalId = operation.kind == .remove ? nil : try ScimUser.externalId(operation.value ?? .null)
        case "id":
            // Okta's replace sends the group's own id beside its members: no change, so taken.
            guard operation.kind != .remove, let id = operation.value?.string, id == group.role else {
                throw .mutability("id is read-only.")
            }
        case "meta", "schemas":
            throw .mutability("\(path.attribute) is read-only.")
        default:
            break
        }
    }

    /// Refuses members that are no user's id before anything changes. How many a request
    /// names is capped where it is read (``ScimGroup/memberNames(_:)``), not the group's size:
    /// a group that grew by many small PATCHes still takes the next one.
    static func check(_ members: Set<String>, among users: [ManagedUser]) throws(ScimError) {
        let names = Set(users.map(\.user.username))
        for name in members.sorted() where !names.contains(name) {
            throw .invalidValue("No user \(ScimError.quoted(name, limit: 256)): a member is a user's id.")
        }
    }

    /// Gives `role` to the users of `members` and takes it from everyone else; each change ends
    /// the user's sessions as a roles change on the users page does, and is an account event.
    private func setMembers(
        of role: String, to members: Set<String>, _ users: [ManagedUser], _ request: Request, _ client: ScimClient
    ) async throws -> ScimGroup {
        try Self.check(members, among: users)
        // The store refuses to take the admin role from its last enabled holder; refused here
        // first, so that no other holder loses it before that refusal.
        let adminRole = service.accounts.adminRole
        if role == adminRole, !service.settings.managesAdmins,
            users.contains(where: { $0.user.roles.contains(role) != members.contains($0.user.username) })
        {
            throw ScimService.adminRefusal("The group \(role) is the role of the app's admins: SCIM does not give or take it.")
        }
        if role == adminRole, users.contains(where: { !$0.isDisabled && $0.user.roles.contains(role) }),
            !users.contains(where: { !$0.isDisabled && members.contains($0.user.username) })
        {
            throw ScimError(.conflict, nil, "The group \(role) keeps at least one enabled member: it is the role of the app's admins.")
        }
        let store = try service.users(request)
        // Additions before removals, each in name order: a failure halfway leaves the role
        // with more holders rather than taken from some of those who keep it.
        let ordered = users.sorted { a, b in
            let (aAdds, bAdds) = (members.contains(a.user.username), members.contains(b.user.username))
            return aAdds != bAdds ? aAdds : a.user.username < b.user.username
        }
        for user in ordered {
            let has = user.user.roles.contains(role)
            let wanted = members.contains(user.user.username)
            guard has != wanted else { continue }
            let name = user.user.username
            // One role given or taken in one statement: two group changes at once (a provider
            // sends several) each keep the other's, which reading and writing the whole list
            // would lose.
            let change = wanted ? try await store.addRole(role, to: name) : try await store.removeRole(role, from: name, keepingOne: adminRole)
            switch change {
            case .done: break
            case .noSuchUser: throw ScimError.invalidValue("No user \(name): a member is a user's id.")
            case .lastAdmin: throw ScimError(.conflict, nil, "\(name) is the last enabled user with the role \(role): they keep it.")
            }
            // As the users page's roles change: the next sign-in brings the new roles.
            await request.endSessions(of: name)
            let roles = try await find(name, store)?.user.roles ?? []
            await service.record(request, client, username: name, event: ActivityEvent.Kind.rolesChanged, detail: roles.isEmpty ? "none" : roles.joined(separator: " "))
        }
        return ScimGroup(role: role, members: members.sorted())
    }
}
