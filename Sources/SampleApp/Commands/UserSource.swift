import Micro

/// Where the users come from: `MICRO_USERS_DB` (a SQLite file), else `MICRO_CREDENTIALS`
/// (a YAML file), else `credentials.yml`.
enum UserSource {
    static func fromEnvironment(_ variables: [String: String]) throws -> any UserStore {
        if let database = variables["MICRO_USERS_DB"], !database.isEmpty {
            return try SqliteUserStore(path: database)
        }
        return try YamlUserStore(file: variables["MICRO_CREDENTIALS"].flatMap { $0.isEmpty ? nil : $0 } ?? "credentials.yml")
    }
}
