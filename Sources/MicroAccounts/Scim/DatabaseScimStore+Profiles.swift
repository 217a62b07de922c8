import Foundation
import MicroCore
import SQLKit

/// The users' SCIM profiles (``ScimProfile``), one JSON text per username.
extension DatabaseScimStore {
    /// The profile kept for `username`; nil for none (a user SCIM never wrote, or one whose
    /// profile does not read).
    func profile(of username: String) async throws -> ScimProfile? {
        try await profiles(of: [username])[username]
    }

    /// The profiles kept for `usernames`, by username.
    func profiles(of usernames: [String]) async throws -> [String: ScimProfile] {
        guard !usernames.isEmpty else { return [:] }
        return try await database.run("read SCIM profiles") { sql in
            var found: [String: ScimProfile] = [:]
            for row in try await sql.select().column("username").column("profile").from("micro_scim_profiles").where("username", .in, usernames).all() {
                let text = try row.decode(column: "profile", as: String.self)
                found[try row.decode(column: "username", as: String.self)] = try? JSONDecoder().decode(ScimProfile.self, from: Data(text.utf8))
            }
            return found
        }
    }

    /// Keeps `profile` for `username` (nil: forgets it).
    func setProfile(_ profile: ScimProfile?, of username: String, now: Int64) async throws {
        let text = try profile.map { String(decoding: try JSONEncoder().encode($0), as: UTF8.self) }
        try await database.run("set a SCIM profile") { sql in
            try await sql.delete(from: "micro_scim_profiles").where("username", .equal, username).run()
            if let text {
                try await sql.insert(into: "micro_scim_profiles").columns("username", "profile", "updated_at")
                    .values(SQLBind(username), SQLBind(text), SQLBind(now)).run()
            }
        }
    }
}
