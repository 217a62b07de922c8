import MicroAccounts
import MicroPasskeys
import Testing

/// Where passkeys are offered: the relying party that follows the app's address.
@Suite struct PasskeyRelyingPartyTests {
    @Test func theIdIsTheHostAndTheOriginKeepsAPortThatIsNotTheDefault() throws {
        let party = try #require(PasskeyRelyingParty(origin: "https://Tools.Example.com:8443"))
        #expect(party.id == "tools.example.com")
        #expect(party.origin == "https://tools.example.com:8443")
        #expect(PasskeyRelyingParty(origin: "https://tools.example.com:443")?.origin == "https://tools.example.com")
        #expect(PasskeyRelyingParty(origin: "http://localhost:4567")?.id == "localhost")
        #expect(PasskeyRelyingParty(origin: "http://app.localhost:4567")?.id == "app.localhost")
    }

    @Test func anIpAddressPlainHttpElsewhereOrNoOriginHasNone() {
        for text in ["https://127.0.0.1", "https://[::1]:8443", "http://10.0.0.2:4567", "http://tools.example.com", "https://example.com/tools", "tools", ""] {
            #expect(PasskeyRelyingParty(origin: text) == nil, "\(text)")
        }
    }
}
