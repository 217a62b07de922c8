import MicroAuth
import MicroCore

/// `Groups`: a group is a role; its members are the users who hold it.
extension ScimRoutes {
    /// What a PUT or PATCH makes of a group: its role's name, its members' usernames, the
    /// client's id for it.
    typealias GroupWish = (role: String, members: Set<String>, externalId: String?)

    /// The group the path's id names, with every user (for their roles), or 404.
    private func targetGroup(_ request: Request) async throws -> (group: ScimGroup, users: [ManagedUser]) {
        let id = request.params["id"] ?? ""
        guard let role = try await service.store.role(ofId: id) else { throw ScimError.notFound("No group \(ScimError.quoted(id, limit: 64)).") }
        let users = try await service.users(request).managedUsers()
        let members = Self.holders(of: role, in: users)
        let kept = try await service.store.hasGroup(role)
        guard !members.isEmpty || kept else { throw ScimError.notFound("No group \(ScimError.quoted(id, limit: 64)).") }
        let externalId = try await service.store.externalId(of: "Group", role)
        let group = try await resource(role, members: members, externalId: externalId)
        return (group, users)
    }

    /// The group `role` as SCIM answers it: its id and its members' ids read.
    private func resource(_ role: String, members: [String], externalId: String?) async throws -> ScimGroup {
        let id = try await service.store.groupIds(of: [role])[role]
        let memberIds = try await service.store.userIds(of: members)
        return ScimGroup(role: role, members: members, id: id, memberIds: memberIds, externalId: externalId)
    }

    private func answer(_ request: Request, _ group: ScimGroup, status: HttpStatus = .ok) -> Response {
        let base = service.base(request)
        let projection = ScimQuery(request).projection
        return ScimResponse.make(
            status, projection.apply(group.json(base: base, withMembers: !projection.leavesOut("members"))),
            location: status == .created ? base + "/Groups/" + ScimUser.pathSegment(group.id) : nil)
    }

    func createGroup(_ request: Request, _ client: ScimClient) async throws -> Response {
        let json = try body(request)
        guard let displayName = json["displayName"]?.string else { throw ScimError.invalidValue("A group needs a displayName.") }
        let role = try ScimGroup.role(named: displayName)
        let memberIds = try ScimGroup.memberIds(json["members"])
        let users = try await service.users(request).managedUsers()
        let kept = try await service.store.hasGroup(role)
        if !Self.holders(of: role, in: users).isEmpty || kept {
            throw ScimError.uniqueness("A group \(role) exists.")
        }
        let members = try await memberNames(memberIds, among: users)
        try await service.store.addGroup(role, now: request.session.now)
        let externalId = try json["externalId"].flatMap(ScimUser.externalId)
        try await service.store.setExternalId(externalId, of: "Group", role)
        let group = try await setMembers(of: role, to: members, users, request, client)
        let made = try await resource(role, members: group.members, externalId: externalId)
        return answer(request, made, status: .created)
    }

    func getGroup(_ request: Request) async throws -> Response {
        answer(request, try await targetGroup(request).group)
    }

    func replaceGroup(_ request: Request, _ client: ScimClient) async throws -> Response {
        let json = try body(request)
        let memberIds = try ScimGroup.memberIds(json["members"])
        let externalId = try json["externalId"].flatMap(ScimUser.externalId)
        return try await updateGroup(request, client) { group, users in
            var role = group.role
            if let displayName = json["displayName"]?.string { role = try ScimGroup.role(named: displayName) }
            return (role, try await memberNames(memberIds, among: users), externalId)
        }
    }

    func patchGroup(_ request: Request, _ client: ScimClient) async throws -> Response {
        let operations = try ScimPatchOperation.operations(in: body(request))
        return try await updateGroup(request, client) { group, users in
            var wish: GroupWish = (group.role, Set(group.members), group.externalId)
            for operation in operations { try await apply(operation, to: &wish, group) }
            try Self.check(wish.members, among: users)
            return wish
        }
    }

    /// Makes the group the path's id names what `wishing` makes of it. A new displayName
    /// renames its role for every holder (its id stays), one rename at a time on this
    /// instance, the group read again once it is this one's turn.
    private func updateGroup(
        _ request: Request, _ client: ScimClient, _ wishing: (ScimGroup, [ManagedUser]) async throws -> GroupWish
    ) async throws -> Response {
        let group: ScimGroup, users: [ManagedUser]
        do {
            (group, users) = try await targetGroup(request)
        } catch let error as ScimError where error.status == .notFound {
            // A rename on this instance may be moving the id right now: read again once it is done.
            (group, users) = try await service.oneRenameAtATime { try await targetGroup(request) }
        }
        let wish = try await wishing(group, users)
        guard wish.role != group.role else { return answer(request, try await change(group, to: wish, users, request, client)) }
        return try await service.oneRenameAtATime {
            var (group, users) = try await targetGroup(request)
            let wish = try await wishing(group, users)
            if wish.role != group.role {
                try await rename(group.role, to: wish.role, users, request, client)
                (group, users) = try await targetGroup(request)
            }
            return answer(request, try await change(group, to: wish, users, request, client))
        }
    }

    /// Gives the group `wish`'s members and `externalId`.
    private func change(_ group: ScimGroup, to wish: GroupWish, _ users: [ManagedUser], _ request: Request, _ client: ScimClient) async throws -> ScimGroup {
        let changed = try await setMembers(of: group.role, to: wish.members, users, request, client)
        if wish.externalId != group.externalId { try await service.store.setExternalId(wish.externalId, of: "Group", group.role) }
        return try await resource(group.role, members: changed.members, externalId: wish.externalId)
    }

    /// Renames the role `role` to `newRole` for every holder, and what SCIM keeps of the group
    /// with it; refused for the admin role, to it, and to a group that exists. Each holder's
    /// sessions end, as on any change of roles, and the change is their account event.
    private func rename(_ role: String, to newRole: String, _ users: [ManagedUser], _ request: Request, _ client: ScimClient) async throws {
        let adminRole = service.accounts.adminRole
        guard role != adminRole else {
            throw ScimError.mutability("The group \(adminRole) is the role of the app's admins, which its checks name: its name does not change.")
        }
        guard newRole != adminRole else { throw ScimError.invalidValue("\(adminRole) is the role of the app's admins: no group is renamed to it.") }
        let kept = try await service.store.hasGroup(newRole)
        if kept || !Self.holders(of: newRole, in: users).isEmpty {
            throw ScimError.uniqueness("A group \(newRole) exists.")
        }
        let store = try service.users(request)
        switch try await store.renameRole(role, to: newRole, keepingOne: adminRole) {
        case .done: break
        case .adminRole: throw ScimError.invalidValue("The role of the app's admins is neither renamed nor the name of a renamed group.")
        }
        try await service.store.renameGroup(role, to: newRole)
        for name in Self.holders(of: role, in: users) {
            await request.endSessions(of: name)
            let roles = try await find(name, store)?.user.roles ?? []
            await service.record(
                request, client, username: name, event: ActivityEvent.Kind.rolesChanged,
                detail: (roles.isEmpty ? "none" : roles.joined(separator: " ")) + " (group \(role) renamed \(newRole))")
        }
    }

    func deleteGroup(_ request: Request, _ client: ScimClient) async throws -> Response {
        let (group, users) = try await targetGroup(request)
        _ = try await setMembers(of: group.role, to: [], users, request, client)
        try await service.store.removeGroup(group.role)
        try await service.store.setExternalId(nil, of: "Group", group.role)
        try await service.store.forgetGroupId(of: group.role)
        return Response(status: .noContent)
    }

    /// Refuses members that are no user's id before anything changes. How many a request
    /// names is capped where it is read (``ScimGroup/memberIds(_:)``), not the group's size:
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
