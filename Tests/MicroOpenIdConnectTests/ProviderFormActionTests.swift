import Testing

@testable import MicroOpenIdConnect

/// The provider's origin in the policy's `form-action`, once, and only where it restricts.
struct ProviderFormActionTests {
    @Test func theOriginJoinsFormActionOnce() {
        let policy = "default-src 'self'; form-action 'self'; frame-ancestors 'none'"
        let added = ProviderFormAction.adding("https://Login.Example.com/realms/tools", to: policy)
        #expect(added == "default-src 'self'; form-action 'self' https://login.example.com; frame-ancestors 'none'")
        #expect(ProviderFormAction.adding("https://login.example.com", to: added) == added)
        #expect(ProviderFormAction.adding("http://127.0.0.1:8080/openid", to: "form-action 'self'") == "form-action 'self' http://127.0.0.1:8080")
    }

    @Test func aPolicyThatDoesNotRestrictFormsIsLeftAlone() {
        #expect(ProviderFormAction.adding("https://login.example.com", to: "default-src 'self'") == "default-src 'self'")
        #expect(ProviderFormAction.adding("https://login.example.com", to: "form-action *") == "form-action *")
        #expect(ProviderFormAction.adding("not a url", to: "form-action 'self'") == "form-action 'self'")
    }
}
