import MicroAuth
import MicroCore

/// `Users`: list (with a filter), add, read, replace, change and remove.
extension ScimRoutes {
    /// The user `key`, read now.
    func find(_ key: String, _ users: any UserTableStore) async throws -> ManagedUser? {
        let stored = try await users.withTable("read a user", guarded: false) { try await $0.find(key, strict: false) }
        return stored.map { ManagedUser(user: $0.user, isDisabled: $0.isDisabled, passwordChangeDue: $0.passwordChangeDue) }
    }

    /// The user the path's id names, or 404.
    private func target(_ request: Request, _ users: any UserTableStore) async throws -> ManagedUser {
        let id = request.params["id"] ?? ""
        guard let name = try await service.store.username(ofId: id), let user = try await find(name, users) else {
            throw ScimError.notFound("No user \(ScimError.quoted(id, limit: 256)).")
        }
        return user
    }

    private func answer(_ request: Request, _ user: ManagedUser, status: HttpStatus = .ok) async throws -> Response {
        let base = service.base(request)
        let resource = try await stored(user)
        return ScimResponse.make(
            status, ScimQuery(request).projection.apply(resource.json(base: base)), location: status == .created ? base + "/Users/" + ScimUser.pathSegment(resource.id) : nil)
    }

    /// `user` with what SCIM keeps of them beside the users table.
    private func stored(_ user: ManagedUser) async throws -> ScimUser {
        let name = user.user.username
        let id = try await service.store.userId(of: name)
        let profile = try await service.store.profile(of: name)
        let externalId = try await service.store.externalId(of: "User", name)
        let groupIds = try await service.store.groupIds(of: user.user.roles)
        return ScimUser(user, id: id, profile: profile, externalId: externalId, groupIds: groupIds)
    }

    func createUser(_ request: Request, _ client: ScimClient) async throws -> Response {
        let wanted = try ScimUser(body: body(request))
        let users = try service.users(request)
        if try await find(wanted.userName, users) != nil { throw ScimError.uniqueness("A user \(wanted.userName) exists.") }
        if let email = wanted.email, let address = try? MailAddress(email), try await users.username(withEmail: address) != nil {
            throw ScimError.uniqueness("Another user has the email address \(email).")
        }
        // No password: they sign in by single sign-on, or with a set-up link an admin makes.
        // One added inactive is disabled in the same write: never enabled for a moment, nor
        // left enabled by a failure between two writes.
        let added = try await users.addUser(
            username: wanted.userName, name: wanted.shownName, roles: [], email: wanted.email, passwordHash: StoredUser.newNoPasswordHash(),
            passwordChangeDue: false, disabled: !wanted.active)
        guard added else { throw ScimError.uniqueness("A user \(wanted.userName), or one with that email address, exists.") }
        await service.forgetLeftovers(of: wanted.userName, request)
        await service.record(request, client, username: wanted.userName, event: ActivityEvent.Kind.userAdded)
        if !wanted.active { await service.record(request, client, username: wanted.userName, event: ActivityEvent.Kind.userDisabled) }
        if let externalId = wanted.externalId { try await service.store.setExternalId(externalId, of: "User", wanted.userName) }
        try await service.store.setProfile(wanted.profile, of: wanted.userName, now: request.session.now)
        guard let user = try await find(wanted.userName, users) else { throw ScimError.notFound("No user \(wanted.userName).") }
        return try await answer(request, user, status: .created)
    }

    func getUser(_ request: Request) async throws -> Response {
        try await answer(request, try await target(request, service.users(request)))
    }

    func replaceUser(_ request: Request, _ client: ScimClient) async throws -> Response {
        let json = try body(request)
        return try await update(request, client) { current in
            var wanted = try ScimUser(body: json)
            // A PUT that leaves `active` out leaves it as it is: a provider that does not send it
            // must not enable a user an admin disabled.
            if json["active"] == nil || json["active"]?.isNull == true { wanted.active = !current.isDisabled }
            return wanted
        }
    }

    func patchUser(_ request: Request, _ client: ScimClient) async throws -> Response {
        let operations = try ScimPatchOperation.operations(in: body(request))
        return try await update(request, client) { current in
            var wanted = try await stored(current)
            for operation in operations { try wanted.apply(operation) }
            return wanted
        }
    }

    func deleteUser(_ request: Request, _ client: ScimClient) async throws -> Response {
        let user = try await target(request, service.users(request))
        try service.guardAdmin(user, "remove")
        try await service.remove(user.user.username, request, client)
        return Response(status: .noContent)
    }

    /// Makes the user the path's id names what `wanting` makes of them. A new `userName`
    /// renames them (``Request/renameUser(_:to:)``: what is kept under the name goes with
    /// them, and their id stays), one rename at a time on this instance, the user read again
    /// once it is this one's turn.
    private func update(
        _ request: Request, _ client: ScimClient, _ wanting: (ManagedUser) async throws -> ScimUser
    ) async throws -> Response {
        let users = try service.users(request)
        let current: ManagedUser
        do {
            current = try await target(request, users)
        } catch let error as ScimError where error.status == .notFound {
            // A rename on this instance may be moving the id between the users table and the
            // map right now: read again once it is done.
            current = try await service.oneRenameAtATime { try await target(request, users) }
        }
        let wanted = try await wanting(current)
        guard wanted.userName != current.user.username else {
            return try await answer(request, try await change(current, to: wanted, users, request, client))
        }
        return try await service.oneRenameAtATime {
            var current = try await target(request, users)
            let wanted = try await wanting(current)
            if wanted.userName != current.user.username {
                // Every other refusal first: a refused change renames nobody.
                try await check(current, to: wanted, users)
                current = try await rename(current, to: wanted.userName, users, request, client)
            }
            return try await answer(request, try await change(current, to: wanted, users, request, client))
        }
    }

    /// Renames `user` to `newName`, with the store's refusals as SCIM's: a name taken is
    /// `uniqueness`, one outside the rule for usernames or like another's `invalidValue`.
    private func rename(
        _ user: ManagedUser, to newName: String, _ users: any UserTableStore, _ request: Request, _ client: ScimClient
    ) async throws -> ManagedUser {
        try service.guardAdmin(user, "rename")
        let name = user.user.username
        switch try await request.renameUser(name, to: newName, byline: client.byline) {
        case .done: break
        case .noSuchUser: throw ScimError(.conflict, nil, "\(name) was renamed or removed meanwhile: read the user again.")
        case .taken: throw ScimError.uniqueness("A user \(newName) exists.")
        case .refused(let reason): throw ScimError.invalidValue("userName is refused: \(reason).")
        }
        guard let renamed = try await find(newName, users) else { throw ScimError.notFound("No user \(newName).") }
        return renamed
    }

    /// Refuses, before anything is written, what `change(_:to:_:_:_:)` would refuse: an
    /// admin's address or state, a taken address, the last admin.
    private func check(_ current: ManagedUser, to wanted: ScimUser, _ users: any UserTableStore) async throws {
        let name = current.user.username
        let changesEmail = wanted.email != current.user.email
        if changesEmail { try service.guardAdmin(current, "change the email address of") }
        if wanted.active == current.isDisabled { try service.guardAdmin(current, wanted.active ? "enable" : "disable") }
        if changesEmail, let email = wanted.email, let address = try? MailAddress(email),
            let holder = try await users.username(withEmail: address), holder != name
        {
            throw ScimError.uniqueness("Another user has the email address \(email).")
        }
        if !wanted.active, !current.isDisabled, current.user.roles.contains(service.accounts.adminRole) {
            let others = try await users.managedUsers().filter { $0.user.username != name && !$0.isDisabled && $0.user.roles.contains(service.accounts.adminRole) }
            if others.isEmpty { throw ScimError(.conflict, nil, "\(name) is the last enabled user with the role \(service.accounts.adminRole): they stay enabled.") }
        }
    }

    /// Makes the store's user `current` what `wanted` says, change by change, each an account event.
    private func change(
        _ current: ManagedUser, to wanted: ScimUser, _ users: any UserTableStore, _ request: Request, _ client: ScimClient
    ) async throws -> ManagedUser {
        let name = current.user.username
        let changesEmail = wanted.email != current.user.email
        try await check(current, to: wanted, users)
        // The address first: of the writes, only it can still be refused (by another user
        // taking it meanwhile), and a refusal then leaves nothing half done.
        if changesEmail {
            // A set-up or reset link already sent went to the old address, or was asked for
            // by someone who knew it: none outlives the change. Voided before the change, so
            // that a failure between the two cannot leave the address changed and a link live.
            try await service.accounts.setupLinks.removeAll(of: name)
            switch try await users.setEmail(of: name, to: wanted.email) {
            case .done: break
            case .noSuchUser: throw ScimError.notFound("No user \(name).")
            case .taken: throw ScimError.uniqueness("Another user has the email address \(wanted.email ?? "").")
            }
            await service.record(request, client, username: name, event: ActivityEvent.Kind.emailChanged, detail: wanted.email ?? "none")
        }
        // Every `active: false`, even of a user already disabled: a retry after a failure
        // halfway through the first must still end what it left.
        if wanted.active == current.isDisabled || !wanted.active {
            try await service.setActive(wanted.active, of: name, wasDisabled: current.isDisabled, request, client)
        }
        if try await service.store.externalId(of: "User", name) != wanted.externalId {
            try await service.store.setExternalId(wanted.externalId, of: "User", name)
        }
        let shownName = User(username: name, name: wanted.shownName).name
        if shownName != current.user.name {
            guard try await users.setName(of: name, to: wanted.shownName) else { throw ScimError.notFound("No user \(name).") }
            // Quoted: a name such as `x by alice` is not read as alice's doing.
            await service.record(request, client, username: name, event: ActivityEvent.Kind.nameChanged, detail: "\"" + shownName + "\"")
        }
        if try await service.store.profile(of: name) != wanted.profile {
            try await service.store.setProfile(wanted.profile, of: name, now: request.session.now)
        }
        guard let user = try await find(name, users) else { throw ScimError.notFound("No user \(name).") }
        return user
    }
}
