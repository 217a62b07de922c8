import Micro
import MicroPostgres

/// Where the sample app's users come from: a table (`MICRO_DATABASE_URL`, else the SQLite
/// file `MICRO_USERS_DB`), else the YAML file `MICRO_CREDENTIALS` (`credentials.yml`).
enum UserSource {
    /// The SQLite file of the users table, or "" when `MICRO_DATABASE_URL` names PostgreSQL;
    /// nil for credentials.yml.
    static func tableFile(_ variables: [String: String]) -> String? {
        if let url = variables[AppStores.urlVariable], !url.isEmpty { return "" }
        guard let file = variables["MICRO_USERS_DB"], !file.isEmpty else { return nil }
        return file
    }

    /// The users of the YAML file.
    static func yaml(_ variables: [String: String]) throws -> any UserStore {
        try YamlUserStore(file: variables["MICRO_CREDENTIALS"].flatMap { $0.isEmpty ? nil : $0 } ?? "credentials.yml")
    }
}
