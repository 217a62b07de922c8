import MicroAuth
import MicroCore
import Testing

/// What a way of signing in may do, by its scopes, and the rule for a scope's name.
@Suite struct RequestAuthenticationTests {
    @Test func scopesNarrowOnlyACredentialThatCarriesThem() {
        let token = RequestAuthentication(kind: .init("api-token"), credentialId: "t1", scopes: ["read", "deploy"])
        #expect(token.has(scope: "read") && token.has(scope: "deploy") && !token.has(scope: "write") && !token.has(scope: "export"))
        #expect(token.allows(.GET) && token.allows(.HEAD) && token.allows(.OPTIONS))
        for method in [HttpMethod.POST, .PUT, .PATCH, .DELETE, .TRACE, .RAW(value: "PROPFIND")] { #expect(!token.allows(method), "\(method)") }
        let writer = RequestAuthentication(kind: .init("api-token"), scopes: ["write"])
        #expect(writer.has(scope: "read"), "write includes read")
        #expect(writer.allows(.DELETE) && !writer.has(scope: "deploy"))
        for unscoped in [RequestAuthentication.session, .basic, RequestAuthentication(kind: .headerCredential)] {
            #expect(unscoped.has(scope: "deploy") && unscoped.allows(.POST) && unscoped.isSignedIn, "\(unscoped)")
        }
        #expect(!RequestAuthentication.none.has(scope: "read") && !RequestAuthentication.none.isSignedIn)
        #expect(token.description == "api-token t1 [read deploy]" && RequestAuthentication.session.description == "session")
        #expect(RequestAuthentication.Kind("session") == .session)
    }

    @Test func aScopeNameIsShortLowercaseAscii() {
        for good in ["read", "write", "deploy", "notes:write", "a", "x-y_z:0", String(repeating: "a", count: 32)] {
            #expect(ScopeName.isValid(good), "\(good)")
        }
        for bad in ["", "Read", "1read", "-x", ":x", "de ploy", "dé", "deploy\u{0}", "a\u{202E}b", "ｄeploy", String(repeating: "a", count: 33), "a/b"] {
            #expect(!ScopeName.isValid(bad), "\(bad.unicodeScalars.map { $0.value })")
        }
    }
}
