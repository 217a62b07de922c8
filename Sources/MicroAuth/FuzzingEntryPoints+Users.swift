import Foundation
@_spi(Fuzzing) import MicroCore

extension FuzzingEntryPoints {
    /// The users a users file holding `data` defines, as ``YamlUserStore`` reads them.
    @_spi(Fuzzing)
    public static func yamlUsers(_ data: [UInt8], file: String = "fuzz.yml") throws(ConfigurationError) -> [String: StoredUser] {
        try YamlUserStore.users(in: Data(data), file: file)
    }
}
