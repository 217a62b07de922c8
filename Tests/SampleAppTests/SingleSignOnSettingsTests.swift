import Micro
import MicroOpenIdConnect
import Testing

@testable import SampleApp

/// The `MICRO_OIDC_*` variables: a provider needs all three of issuer, client id and secret,
/// and a missing one is named.
struct SingleSignOnSettingsTests {
    private func problem(_ variables: [String: String]) -> String? {
        do {
            _ = try SingleSignOnSettings.fromEnvironment(variables, readFile: { path in
                guard path == "/run/secrets/oidc" else { throw CocoaLikeError() }
                return "from-file\n"
            })
            return nil
        } catch {
            return error.message
        }
    }

    private struct CocoaLikeError: Error {}

    @Test func noneSetMeansPasswordsOnly() throws {
        let settings = try SingleSignOnSettings.fromEnvironment([:])
        #expect(settings.provider == nil)
        #expect(settings.acceptsPasswords)
    }

    @Test func everyMissingPartnerIsNamed() {
        #expect(problem(["MICRO_OIDC_ISSUER": "https://login.example.com"])?.contains("MICRO_OIDC_CLIENT_ID is not") == true)
        #expect(problem(["MICRO_OIDC_ISSUER": "https://login.example.com", "MICRO_OIDC_CLIENT_ID": "tools"])?.contains("MICRO_OIDC_CLIENT_SECRET is not") == true)
        #expect(problem(["MICRO_OIDC_CLIENT_ID": "tools"])?.contains("MICRO_OIDC_CLIENT_ID is set but MICRO_OIDC_ISSUER is not") == true)
        #expect(problem(["MICRO_OIDC_CLIENT_SECRET": "x"])?.contains("MICRO_OIDC_CLIENT_SECRET is set but MICRO_OIDC_ISSUER") == true)
        #expect(problem(["MICRO_PASSWORD_SIGNIN": "off"])?.contains("nobody could sign in") == true)
        #expect(problem(["MICRO_OIDC_ISSUER": "http://login.example.com", "MICRO_OIDC_CLIENT_ID": "a", "MICRO_OIDC_CLIENT_SECRET": "b"])?.contains("not https") == true)
        #expect(problem(["MICRO_OIDC_ISSUER": "https://l.example", "MICRO_OIDC_CLIENT_ID": "a", "MICRO_OIDC_CLIENT_SECRET": "b", "MICRO_OIDC_USERS": "all"])?.contains("MICRO_OIDC_USERS") == true)
        #expect(problem(["MICRO_OIDC_ISSUER": "https://l.example", "MICRO_OIDC_CLIENT_ID": "a", "MICRO_OIDC_CLIENT_SECRET": "b", "MICRO_OIDC_LINK_BY": "sub"])?.contains("MICRO_OIDC_LINK_BY") == true)
        #expect(problem(["MICRO_OIDC_ISSUER": "https://l.example", "MICRO_OIDC_CLIENT_ID": "a", "MICRO_OIDC_CLIENT_SECRET": "b", "MICRO_OIDC_LINK": "name"])?.contains("MICRO_OIDC_LINK is 'name'; it is proof or claim") == true)
        #expect(problem(["MICRO_OIDC_ISSUER": "https://l.example", "MICRO_OIDC_CLIENT_ID": "a", "MICRO_OIDC_CLIENT_SECRET_FILE": "/nope"])?.contains("MICRO_OIDC_CLIENT_SECRET_FILE") == true)
    }

    @Test func aFullSetting() throws {
        let settings = try SingleSignOnSettings.fromEnvironment([
            "MICRO_OIDC_ISSUER": "http://127.0.0.1:9000", "MICRO_OIDC_CLIENT_ID": "tools", "MICRO_OIDC_CLIENT_SECRET_FILE": "/run/secrets/oidc",
            "MICRO_OIDC_NAME": "Okta", "MICRO_OIDC_USERS": "any", "MICRO_OIDC_ALLOWED_DOMAINS": "Example.com, corp.example",
            "MICRO_OIDC_ROLES_CLAIM": "roles", "MICRO_OIDC_LOGOUT": "on", "MICRO_PASSWORD_SIGNIN": "off", "MICRO_OIDC_LINK_BY": "Email",
            "MICRO_OIDC_LINK": "Claim", "MICRO_OIDC_REQUIRED_GROUPS": "Tools-Users, admins,", "MICRO_OIDC_ROLE_SYNC": "On",
        ], readFile: { _ in "from-file\n" })
        let provider = try #require(settings.provider)
        #expect(provider.clientSecret == "from-file")
        #expect(provider.name == "Okta")
        #expect(provider.allowedDomains == ["example.com", "corp.example"])
        #expect(provider.rolesClaim == "roles")
        #expect(provider.logout)
        #expect(provider.linkBy == .email)
        #expect(provider.linkRule == .claim)
        #expect(provider.requiredGroups == ["Tools-Users", "admins"])
        #expect(provider.roleSync)
        #expect(!settings.acceptsPasswords)
        // Anyone the provider vouches for adds a link: they expire when unused.
        #expect(settings.linkRetention == IdentityLinkRetention.default)
    }

    @Test func groupSettingsThatCannotWorkStopTheStart() async throws {
        let base = ["MICRO_OIDC_ISSUER": "https://l.example", "MICRO_OIDC_CLIENT_ID": "a", "MICRO_OIDC_CLIENT_SECRET": "b"]
        #expect(problem(base.merging(["MICRO_OIDC_ROLE_SYNC": "yes"]) { $1 })?.contains("MICRO_OIDC_ROLE_SYNC is 'yes'; it is on or off") == true)
        #expect(problem(base.merging(["MICRO_OIDC_REQUIRED_GROUPS": " , "]) { $1 })?.contains("MICRO_OIDC_REQUIRED_GROUPS names no group") == true)
        var synced = try SingleSignOnSettings.fromEnvironment(base.merging(["MICRO_OIDC_ROLE_SYNC": "on"]) { $1 })
        await #expect(throws: ConfigurationError.self) { try await synced.keepLinks(in: nil) }
        var unsynced = try SingleSignOnSettings.fromEnvironment(base)
        try await unsynced.keepLinks(in: nil)
    }

    @Test func linksOfStoreUsersLastAsLongAsTheUser() throws {
        let settings = try SingleSignOnSettings.fromEnvironment([
            "MICRO_OIDC_ISSUER": "https://login.example.com", "MICRO_OIDC_CLIENT_ID": "tools", "MICRO_OIDC_CLIENT_SECRET": "s",
        ])
        #expect(settings.linkRetention == IdentityLinkRetention.whileTheUserIsKept)
        // A store user with a password proves it on a first single sign-on, by default.
        #expect(settings.provider?.linkRule == .proof)
    }
}
