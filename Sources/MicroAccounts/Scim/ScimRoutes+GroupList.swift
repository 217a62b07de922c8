import MicroAuth
import MicroCore

/// `Groups` listed: every role someone holds and every group kept empty, a page at a time, or
/// those a filter names by displayName or id.
extension ScimRoutes {
    func listGroups(_ request: Request, _ query: ScimQuery) async throws -> Response {
        let (start, count) = try query.page(maxCount: service.settings.maxCount)
        let users = try await service.users(request).managedUsers()
        var roles = Set(users.flatMap(\.user.roles))
        roles.formUnion(try await service.store.groups())
        if let filter = try query.parsedFilter() {
            var named: [String?] = []
            for term in filter.terms {
                switch term.attribute {
                case "displayname": named.append(try? ScimGroup.role(named: term.value))
                case "id": named.append(try await service.store.role(ofId: term.value))
                default: throw ScimError.invalidFilter("Groups are filtered by displayName or id (eq).")
                }
            }
            roles = roles.filter { role in named.allSatisfy { $0 == role } }
        }
        let sorted = roles.sorted()
        let projection = query.projection
        let withMembers = !projection.leavesOut("members")
        let page = Array(sorted.dropFirst(start - 1).prefix(count))
        let external = try await service.store.externalIds(of: "Group", page)
        let ids = try await service.store.groupIds(of: page)
        let memberIds = withMembers ? try await service.store.userIds(of: Array(Set(page.flatMap { Self.holders(of: $0, in: users) }))) : [:]
        let shown = page.map { role in
            projection.apply(
                ScimGroup(role: role, members: Self.holders(of: role, in: users), id: ids[role], memberIds: memberIds, externalId: external[role])
                    .json(base: service.base(request), withMembers: withMembers))
        }
        return ScimResponse.list(Array(shown), total: sorted.count, startIndex: start)
    }

    /// The users who hold `role`, by name.
    static func holders(of role: String, in users: [ManagedUser]) -> [String] {
        users.filter { $0.user.roles.contains(role) }.map(\.user.username).sorted()
    }
}
