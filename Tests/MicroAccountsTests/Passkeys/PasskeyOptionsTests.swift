import Foundation
import MicroAccounts
import MicroCore
import MicroPasskeys
import Testing

/// The options the pages hand to the browser, read back as JSON.
@Suite struct PasskeyOptionsTests {
    let relyingParty = PasskeyRelyingParty(origin: "https://tools.example.com")!
    let challenge = PasskeyChallenge(purpose: .registration, now: 1_800_000_000)

    func json(_ text: String) throws -> [String: Any] {
        try #require(try JSONSerialization.jsonObject(with: Data(text.utf8)) as? [String: Any])
    }

    @Test func creationAsksForADiscoverableKeyWithoutAttestationAndExcludesTheUsersOwn() throws {
        let text = PasskeyOptions.creation(
            challenge: challenge, relyingParty: relyingParty, appName: "Lab \"tools\"", userHandle: [1, 2, 3], username: "ann",
            displayName: "Ann </script>", existing: [[9, 9], [8]])
        let options = try json(text)
        #expect(options["challenge"] as? String == challenge.text)
        #expect(options["attestation"] as? String == "none")
        #expect(options["timeout"] as? Int == 300_000)
        let party = try #require(options["rp"] as? [String: Any])
        #expect(party["id"] as? String == "tools.example.com")
        #expect(party["name"] as? String == "Lab \"tools\"")
        let user = try #require(options["user"] as? [String: Any])
        #expect(user["id"] as? String == Base64Url.encode([1, 2, 3]))
        #expect(user["name"] as? String == "ann")
        #expect(user["displayName"] as? String == "Ann </script>")
        let algorithms = try #require(options["pubKeyCredParams"] as? [[String: Any]]).compactMap { $0["alg"] as? Int }
        #expect(algorithms == [-7, -8, -257])
        let excluded = try #require(options["excludeCredentials"] as? [[String: Any]])
        #expect(excluded.compactMap { $0["id"] as? String } == [Base64Url.encode([9, 9]), Base64Url.encode([8])])
        #expect(excluded.allSatisfy { $0["type"] as? String == "public-key" })
        let selection = try #require(options["authenticatorSelection"] as? [String: Any])
        #expect(selection["residentKey"] as? String == "required")
        #expect(selection["requireResidentKey"] as? Bool == true)
    }

    @Test func aSignInListsNoCredentialsAndASecondStepTheUsersAndAsksForVerification() throws {
        let signIn = try json(PasskeyOptions.request(challenge: challenge, relyingParty: relyingParty))
        #expect(signIn["rpId"] as? String == "tools.example.com")
        #expect((signIn["allowCredentials"] as? [Any])?.isEmpty == true)
        #expect(signIn["userVerification"] as? String == "preferred")
        let step = try json(PasskeyOptions.request(challenge: challenge, relyingParty: relyingParty, allowed: [[7]], userVerification: true))
        #expect((step["allowCredentials"] as? [[String: Any]])?.first?["id"] as? String == Base64Url.encode([7]))
        #expect(step["userVerification"] as? String == "required")
    }
}
