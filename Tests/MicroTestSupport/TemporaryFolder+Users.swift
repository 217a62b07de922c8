import Foundation
import MicroAuth
import MicroCore

package extension TemporaryFolder {
    /// Writes `file` as a credentials file of several users: their names, hashes and display
    /// names (none when nil), in order.
    func writeUsers(_ file: String, _ users: [(username: String, hash: String, name: String?)]) throws {
        let entries = users.map { user in
            "  - username: \(user.username)\n    password_hash: \"\(user.hash)\"\n"
                + (user.name.map { "    name: \($0)\n" } ?? "")
        }
        try write(file, "users:\n" + entries.joined())
    }

    /// Writes `file` with one user per name, each of password "pw" hashed at its cost, and
    /// opens it.
    func yamlUsers(_ file: String = "users.yml", costs: KeyValuePairs<String, Int>) throws -> YamlUserStore {
        try writeUsers(file, try costs.map { ($0.key, try Password.hash("pw", cost: $0.value), nil) })
        return try YamlUserStore(file: self.file(file))
    }
}
