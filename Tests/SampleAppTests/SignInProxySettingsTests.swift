import Micro
import MicroOpenIdConnect
import Testing

@testable import SampleApp

/// The `MICRO_PROXY_*` variables: a mode needs its partners, and a missing one is named.
struct SignInProxySettingsTests {
    private func problem(_ variables: [String: String], trusted: [String] = ["10.0.0.5"]) -> String? {
        do {
            _ = try SignInProxySettings.fromEnvironment(variables, trustedProxies: trusted)
            return nil
        } catch {
            return error.message
        }
    }

    @Test func noneSetMeansNoProxy() throws {
        #expect(try SignInProxySettings.fromEnvironment([:], trustedProxies: []) == nil)
    }

    @Test func everyMistakeIsNamed() {
        #expect(problem(["MICRO_PROXY_AUTH": "cookie"])?.contains("MICRO_PROXY_AUTH is 'cookie'; it is header or jwt") == true)
        #expect(problem(["MICRO_PROXY_AUTH": "header"], trusted: [])?.contains("MICRO_TRUSTED_PROXIES is empty") == true)
        #expect(problem(["MICRO_PROXY_AUTH": "header", "MICRO_PROXY_TRUSTED_ADDRESSES": "10.0.0.5"], trusted: [])?.contains("MICRO_TRUSTED_PROXIES is empty") == true)
        #expect(problem(["MICRO_PROXY_AUTH": "header", "MICRO_PROXY_TRUSTED_ADDRESSES": "10.0.0.5, proxy.corp"])?
            .contains("MICRO_PROXY_TRUSTED_ADDRESSES has 'proxy.corp'") == true)
        #expect(problem(["MICRO_PROXY_AUTH": "header", "MICRO_PROXY_TRUSTED_ADDRESSES": " , "])?.contains("MICRO_PROXY_TRUSTED_ADDRESSES is set but names no address") == true)
        #expect(problem(["MICRO_PROXY_TRUSTED_ADDRESSES": "10.0.0.5"])?.contains("MICRO_PROXY_TRUSTED_ADDRESSES is set but MICRO_PROXY_AUTH is not") == true)
        #expect(problem([
            "MICRO_PROXY_AUTH": "jwt", "MICRO_PROXY_TRUSTED_ADDRESSES": "10.0.0.5", "MICRO_PROXY_JWT_HEADER": "X-Jwt",
            "MICRO_PROXY_JWKS_URL": "https://keys.example.com/jwks", "MICRO_PROXY_ISSUER": "https://i.example", "MICRO_PROXY_AUDIENCE": "a",
        ])?.contains("MICRO_PROXY_TRUSTED_ADDRESSES is for MICRO_PROXY_AUTH=header") == true)
        #expect(problem(["MICRO_PROXY_USER_HEADER": "X-User"])?.contains("MICRO_PROXY_USER_HEADER is set but MICRO_PROXY_AUTH is not") == true)
        #expect(problem(["MICRO_PROXY_AUTH": "header", "MICRO_PROXY_USERS": "all"])?.contains("MICRO_PROXY_USERS is 'all'") == true)
        #expect(problem(["MICRO_PROXY_AUTH": "header", "MICRO_PROXY_USER_HEADER": "X User"])?.contains("is not a header name") == true)
        #expect(problem(["MICRO_PROXY_AUTH": "jwt", "MICRO_PROXY_JWT_HEADER": "X-Jwt"])?
            .contains("MICRO_PROXY_JWKS_URL, MICRO_PROXY_ISSUER, MICRO_PROXY_AUDIENCE are not set") == true)
        #expect(problem([
            "MICRO_PROXY_AUTH": "jwt", "MICRO_PROXY_JWT_HEADER": "X-Jwt", "MICRO_PROXY_JWKS_URL": "http://keys.example.com/jwks",
            "MICRO_PROXY_ISSUER": "https://i.example", "MICRO_PROXY_AUDIENCE": "a",
        ])?.contains("not https") == true)
        #expect(problem([
            "MICRO_PROXY_AUTH": "jwt", "MICRO_PROXY_JWT_HEADER": "X-Jwt", "MICRO_PROXY_JWKS_URL": "https://keys.example.com/jwks",
            "MICRO_PROXY_ISSUER": "https://i.example", "MICRO_PROXY_AUDIENCE": "a",
        ])?.contains("allowedDomains is empty") == true)
    }

    @Test func bothModesAreMade() throws {
        let header = try #require(try SignInProxySettings.fromEnvironment(
            ["MICRO_PROXY_AUTH": "Header", "MICRO_PROXY_USER_HEADER": "X-Auth-Request-User", "MICRO_PROXY_USERS": "any",
             "MICRO_PROXY_GROUPS_HEADER": "X-Auth-Request-Groups", "MICRO_PROXY_SIGNOUT_URL": "/oauth2/sign_out"],
            trustedProxies: ["127.0.0.1"]) as? ProxySignIn)
        #expect(header.userHeader == "X-Auth-Request-User")
        #expect(header.users == .any)
        #expect(header.groupsHeader == "X-Auth-Request-Groups")
        #expect(header.signOutUrl == "/oauth2/sign_out")
        #expect(header.trustedAddresses == nil)
        // The door's own list, narrower than the proxies whose forwarding headers are believed.
        let door = try #require(try SignInProxySettings.fromEnvironment(
            ["MICRO_PROXY_AUTH": "header", "MICRO_PROXY_TRUSTED_ADDRESSES": "10.0.0.5, fd00::/64"], trustedProxies: ["10.0.0.0/8", "fd00::/8"]) as? ProxySignIn)
        #expect(door.trustedAddresses == ["10.0.0.5", "fd00::/64"])
        let jwt = try #require(try SignInProxySettings.fromEnvironment(
            ["MICRO_PROXY_AUTH": "jwt", "MICRO_PROXY_JWT_HEADER": "Cf-Access-Jwt-Assertion", "MICRO_PROXY_JWKS_URL": "https://t.cloudflareaccess.com/cdn-cgi/access/certs",
             "MICRO_PROXY_ISSUER": "https://t.cloudflareaccess.com", "MICRO_PROXY_AUDIENCE": "tag", "MICRO_PROXY_USER_CLAIM": "sub"],
            trustedProxies: []) as? ProxyJwtSignIn)
        #expect(jwt.header == "Cf-Access-Jwt-Assertion")
        #expect(jwt.userClaim == "sub")
    }

    @Test func passwordsOffWithAProxyIsAWayIn() throws {
        let settings = try SingleSignOnSettings.fromEnvironment(["MICRO_PASSWORD_SIGNIN": "off", "MICRO_PROXY_AUTH": "header"])
        #expect(!settings.acceptsPasswords)
    }
}
