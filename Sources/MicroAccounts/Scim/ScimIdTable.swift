import Foundation
import SQLKit

/// One of the tables that keep a SCIM `id` alive past a rename (`micro_scim_user_ids`,
/// `micro_scim_group_ids`): a resource's id is its name (a username, a role) until it is
/// renamed, and a row then keeps the old id pointing at the new name. Most resources are never
/// renamed and have no row, so the ids given out before the table existed stay valid. A name
/// that some row's id already spells is given a random id of its own the first time its id is
/// asked, so that two resources never share one.
struct ScimIdTable: Sendable {
    /// The table.
    let table: String
    /// The column holding the name the id points at.
    let column: String

    static let users = ScimIdTable(table: "micro_scim_user_ids", column: "username")
    static let groups = ScimIdTable(table: "micro_scim_group_ids", column: "role")

    /// The longest id looked up: an id is a name or a UUID, both shorter; a longer one names nothing.
    static let maxIdLength = 256
    /// How many values one `IN` list binds: far under SQLite's and PostgreSQL's limits.
    private static let chunk = 500

    /// The ids of `names`, by name; a name that needs an id of its own is given one.
    func ids(of names: [String], in sql: any SQLDatabase) async throws -> [String: String] {
        let unique = Array(Set(names))
        var found = try await rows(where: column, in: unique, sql).reduce(into: [String: String]()) { $0[$1.name] = $1.id }
        let bare = unique.filter { found[$0] == nil }
        let clashing = Set(try await rows(where: "id", in: bare, sql).map(\.id))
        let needing = bare.filter(clashing.contains)
        if !needing.isEmpty {
            for name in needing {
                // A unique name column: another request giving the name its id meanwhile wins.
                try await sql.insert(into: table).columns("id", column).values(SQLBind(UUID().uuidString.lowercased()), SQLBind(name))
                    .ignoringConflicts().run()
            }
            for row in try await rows(where: column, in: needing, sql) { found[row.name] = row.id }
        }
        var ids: [String: String] = [:]
        for name in unique { ids[name] = found[name] ?? name }
        return ids
    }

    /// The names `ids` point at, by id; an id that names nothing is left out. `key` turns an id
    /// into the name it spells (a username's enforced form, a role's folded one), nil for none.
    func names(ofIds ids: [String], key: (String) -> String?, in sql: any SQLDatabase) async throws -> [String: String] {
        let asked = Array(Set(ids.filter { $0.utf8.count <= Self.maxIdLength }))
        let keys = asked.reduce(into: [String: String]()) { keys, id in keys[id] = key(id) }
        let byId = try await rows(where: "id", in: Array(Set(asked + keys.values)), sql).reduce(into: [String: String]()) { $0[$1.id] = $1.name }
        let renamed = Set(try await rows(where: column, in: Array(Set(keys.values)), sql).map(\.name))
        var names: [String: String] = [:]
        for id in asked {
            if let name = byId[id] {
                names[id] = name
            } else if let key = keys[id] {
                // A name whose resource has an id of its own (renamed to it) is not its id.
                if let name = byId[key] { names[id] = name } else if !renamed.contains(key) { names[id] = key }
            }
        }
        return names
    }

    /// Points the id of `old` at `new` (renamed), in place of any row an earlier holder of
    /// `new` left.
    func carry(_ old: String, to new: String, in sql: any SQLDatabase) async throws {
        try await sql.delete(from: table).where(SQLIdentifier(column), .equal, new).run()
        let hasRow = try await sql.select().column("id").from(table).where(SQLIdentifier(column), .equal, old).first() != nil
        if hasRow {
            try await sql.update(table).set(SQLIdentifier(column), to: new).where(SQLIdentifier(column), .equal, old).run()
        } else if try await sql.select().column("id").from(table).where("id", .equal, old).first() == nil {
            try await sql.insert(into: table).columns("id", column).values(SQLBind(old), SQLBind(new)).run()
        }
        // Otherwise the old name's id was never given out (another resource's id spells it): the
        // new name gets its id when first asked. A row renamed back to its id is no longer needed.
        try await sql.delete(from: table).where(SQLIdentifier("id"), .equal, column: SQLIdentifier(column)).run()
    }

    /// Forgets the id of `name` (removed): the id names nothing afterwards.
    func forget(_ name: String, in sql: any SQLDatabase) async throws {
        try await sql.delete(from: table).where(SQLIdentifier(column), .equal, name).run()
    }

    /// The rows whose `field` is one of `values`, read in chunks.
    private func rows(where field: String, in values: [String], _ sql: any SQLDatabase) async throws -> [(id: String, name: String)] {
        var found: [(id: String, name: String)] = []
        var start = 0
        while start < values.count {
            let part = Array(values[start..<min(start + Self.chunk, values.count)])
            start += Self.chunk
            for row in try await sql.select().column("id").column(SQLIdentifier(column)).from(table).where(SQLIdentifier(field), .in, part).all() {
                found.append((try row.decode(column: "id", as: String.self), try row.decode(column: column, as: String.self)))
            }
        }
        return found
    }
}
