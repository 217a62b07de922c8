import MicroAuth
import MicroCore

/// `Users` listed: every user a page at a time, or those a filter names by an indexed
/// attribute; each with their SCIM id, which outlives a rename.
extension ScimRoutes {
    func listUsers(_ request: Request, _ query: ScimQuery) async throws -> Response {
        let (start, count) = try query.page(maxCount: service.settings.maxCount)
        let users = try service.users(request)
        var found: [ManagedUser]
        if let filter = try query.parsedFilter() {
            // The users the filter's ids name, read once: an id outlives a rename.
            let named = try await service.store.usernames(ofIds: filter.terms.filter { $0.attribute == "id" }.map(\.value))
            var matching: [ManagedUser] = []
            for user in try await lookUp(filter, users, named: named) {
                let externalId = filter.value(of: "externalid") == nil ? nil : try await service.store.externalId(of: "User", user.user.username)
                if try matches(user, externalId: externalId, named: named, filter) { matching.append(user) }
            }
            found = matching
        } else {
            found = try await users.managedUsers()
        }
        found.sort { $0.user.username < $1.user.username }
        let shown = found.dropFirst(start - 1).prefix(count)
        let projection = query.projection
        let names = shown.map(\.user.username)
        let external = try await service.store.externalIds(of: "User", names)
        let profiles = try await service.store.profiles(of: names)
        let ids = try await service.store.userIds(of: names)
        let groupIds = try await service.store.groupIds(of: Array(Set(shown.flatMap(\.user.roles))))
        let resources = shown.map { user in
            let name = user.user.username
            return projection.apply(
                ScimUser(user, id: ids[name], profile: profiles[name], externalId: external[name], groupIds: groupIds).json(base: service.base(request)))
        }
        return ScimResponse.list(resources, total: found.count, startIndex: start)
    }

    /// The user a filter names by an indexed attribute (a userName, an id, an address), as a
    /// list; `named` holds the usernames of the filter's ids.
    private func lookUp(_ filter: ScimFilter, _ users: any UserTableStore, named: [String: String]) async throws -> [ManagedUser] {
        if let id = filter.value(of: "id") {
            guard let name = named[id] else { return [] }
            return try await find(name, users).map { [$0] } ?? []
        }
        if let name = filter.value(of: "username") {
            guard let key = try? Username.enforce(name) else { return [] }
            return try await find(key, users).map { [$0] } ?? []
        }
        if let email = filter.value(of: "emails.value") ?? filter.value(of: "emails") {
            guard let address = try? MailAddress(email), let name = try await users.username(withEmail: address) else { return [] }
            return try await find(name, users).map { [$0] } ?? []
        }
        if let externalId = filter.value(of: "externalid") {
            var found: [ManagedUser] = []
            for name in try await service.store.ids(of: "User", withExternalId: externalId) {
                if let user = try await find(name, users) { found.append(user) }
            }
            return found
        }
        throw ScimError.invalidFilter("Filter users by userName, id, emails.value or externalId (eq), with 'and' for more terms.")
    }

    /// Whether `user` meets every term of `filter`.
    private func matches(_ user: ManagedUser, externalId: String?, named: [String: String], _ filter: ScimFilter) throws(ScimError) -> Bool {
        for term in filter.terms {
            let holds: Bool
            switch term.attribute {
            case "username": holds = Username.key(term.value) == user.user.username
            case "emails.value", "emails": holds = user.user.email?.lowercased() == term.value.lowercased()
            case "displayname": holds = user.user.name == term.value
            case "active": holds = (term.value == "true") == !user.isDisabled
            case "id": holds = named[term.value] == user.user.username
            case "externalid": holds = externalId == term.value
            default: throw ScimError.invalidFilter("Users are filtered by userName, emails.value, externalId, displayName, active or id.")
            }
            if !holds { return false }
        }
        return true
    }
}
