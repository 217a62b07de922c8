// The YAML user loader (credentials.yml), on libyaml.
//
// Checks: no crash and no hang (aliases are budgeted); a bad file is a thrown
// ConfigurationError naming the file; the users loaded have a lowercased, non-empty
// username under which they are kept, and a bcrypt-shaped hash.
@_spi(Fuzzing) import Micro
import FuzzSupport

@_cdecl("LLVMFuzzerTestOneInput")
public func fuzzYamlUsers(_ data: UnsafePointer<UInt8>?, _ count: Int) -> CInt {
    do {
        let users = try FuzzingEntryPoints.yamlUsers(bytes(data, count), file: "fuzz.yml")
        for (key, stored) in users {
            require(key == stored.user.username, "user \(stored.user.username) kept under \(key)")
            require(!key.isEmpty && key == key.lowercased(), "a username not lowercased or empty: \(key)")
            require(!stored.user.name.isEmpty, "a user without a display name")
            let hash = stored.passwordHash
            require(hash.utf8.count == 60 && (hash.hasPrefix("$2a$") || hash.hasPrefix("$2b$") || hash.hasPrefix("$2y$")),
                "a password hash that is not bcrypt's: \(hash)")
        }
    } catch {
        require(error.message.hasPrefix("fuzz.yml:"), "an error that does not name the file: \(error.message)")
    }
    return 0
}

/// The entry point a debug build of the package's tests asks for (see `fuzzerMain`).
@_cdecl("FuzzYamlUsers_main")
public func fuzzYamlUsersMain(_ argc: CInt, _ argv: UnsafeMutablePointer<UnsafeMutablePointer<CChar>?>?) -> CInt {
    fuzzerMain(argc, argv)
}
