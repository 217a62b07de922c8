import MicroAuth
import MicroCore
import SQLKit

/// The SCIM ids of users and groups, which outlive renames (``ScimIdTable``): every id SCIM
/// answers or reads goes through these.
extension DatabaseScimStore {
    /// The ids of the users `usernames`, by username.
    func userIds(of usernames: [String]) async throws -> [String: String] {
        guard !usernames.isEmpty else { return [:] }
        return try await database.run("read SCIM user ids") { sql in try await ScimIdTable.users.ids(of: usernames, in: sql) }
    }

    /// The id of the user `username`.
    func userId(of username: String) async throws -> String {
        try await userIds(of: [username])[username] ?? username
    }

    /// The usernames the ids `ids` name, by id; an id that names nobody is left out. The user
    /// may be gone from the users table since: the caller reads it.
    func usernames(ofIds ids: [String]) async throws -> [String: String] {
        guard !ids.isEmpty else { return [:] }
        return try await database.run("read SCIM user ids") { sql in
            try await ScimIdTable.users.names(ofIds: ids, key: { try? Username.enforce($0) }, in: sql)
        }
    }

    /// The username the id `id` names; nil for none.
    func username(ofId id: String) async throws -> String? {
        try await usernames(ofIds: [id])[id]
    }

    /// The ids of the groups (roles) `roles`, by role.
    func groupIds(of roles: [String]) async throws -> [String: String] {
        guard !roles.isEmpty else { return [:] }
        return try await database.run("read SCIM group ids") { sql in try await ScimIdTable.groups.ids(of: roles, in: sql) }
    }

    /// The role the group id `id` names; nil for none.
    func role(ofId id: String) async throws -> String? {
        try await database.run("read SCIM group ids") { sql in
            try await ScimIdTable.groups.names(ofIds: [id], key: { try? ScimGroup.role(named: $0) }, in: sql)[id]
        }
    }

    /// Moves what SCIM keeps of the group `role` (kept while nobody holds it, its `externalId`,
    /// its id) to `newRole`, the role's new name, in one transaction.
    func renameGroup(_ role: String, to newRole: String) async throws {
        try await database.transaction { sql in
            try await sql.delete(from: "micro_scim_groups").where("name", .equal, newRole).run()
            try await sql.update("micro_scim_groups").set("name", to: SQLBind(newRole)).where("name", .equal, role).run()
            try await sql.delete(from: "micro_scim_external_ids").where("kind", .equal, "Group").where("id", .equal, newRole).run()
            try await sql.update("micro_scim_external_ids").set("id", to: SQLBind(newRole)).where("kind", .equal, "Group").where("id", .equal, role).run()
            try await ScimIdTable.groups.carry(role, to: newRole, in: sql)
        }
    }

    /// Forgets the id of the group `role` (removed).
    func forgetGroupId(of role: String) async throws {
        try await database.run("forget a SCIM group id") { sql in try await ScimIdTable.groups.forget(role, in: sql) }
    }
}
