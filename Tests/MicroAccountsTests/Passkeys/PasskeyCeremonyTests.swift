import Foundation
@testable import MicroAccounts
import MicroCore
import Testing

/// Registration and sign-in answers crafted by a software authenticator, each spoiled in one
/// way, through the checks Micro makes as a WebAuthn relying party.
@Suite struct PasskeyCeremonyTests {
    let relyingParty = PasskeyRelyingParty(origin: "https://tools.example.com")!
    let now: Int64 = 1_800_000_000
    let userHandle: [UInt8] = Array(repeating: 7, count: 32)

    /// A pending list holding one fresh challenge for `purpose`, and the challenge.
    func pending(_ purpose: PasskeyChallenge.Purpose) -> (PendingPasskeyChallenges, PasskeyChallenge) {
        var pending = PendingPasskeyChallenges()
        let challenge = PasskeyChallenge(purpose: purpose, now: now)
        pending.add(challenge)
        return (pending, challenge)
    }

    /// Registers `authenticator`'s credential and gives what was stored.
    func registered(_ authenticator: SoftwareAuthenticator) throws -> NewPasskey {
        var (pending, challenge) = pending(.registration)
        let response = try authenticator.register(challenge, relyingParty: relyingParty)
        return try response.verify(against: &pending, at: now, relyingParty: relyingParty, userVerification: true)
    }

    /// Verifies a sign-in answer `response` for `passkey` with a fresh pending challenge taken by `make`.
    func signIn(
        _ passkey: NewPasskey, signCount: UInt32? = nil, userVerification: Bool = true,
        _ make: (PasskeyChallenge) throws -> PasskeyAssertionResponse
    ) throws -> PasskeyUse {
        var (pending, challenge) = pending(.signIn)
        let response = try make(challenge)
        return try response.verify(
            purpose: .signIn, against: &pending, at: now, relyingParty: relyingParty, publicKey: passkey.publicKey,
            signCount: signCount ?? passkey.signCount, userHandle: userHandle, userVerification: userVerification)
    }

    @Test(arguments: PasskeyAlgorithm.allCases)
    func aPasskeyOfEachAlgorithmIsRegisteredAndSignsIn(_ algorithm: PasskeyAlgorithm) throws {
        var authenticator = try SoftwareAuthenticator(algorithm, signCount: 5)
        let passkey = try registered(authenticator)
        #expect(passkey.credentialId == authenticator.credentialId)
        #expect(passkey.publicKey.algorithm == algorithm)
        #expect(passkey.signCount == 5)
        #expect(passkey.userVerified)
        authenticator.signCount = 6
        let use = try signIn(passkey) { try authenticator.assert($0, relyingParty: relyingParty, userHandle: userHandle) }
        #expect(use == PasskeyUse(signCount: 6, userVerified: true))
    }

    @Test func anAnswerForAnotherOriginOrInAFrameOfAnotherSiteIsRefused() throws {
        let authenticator = try SoftwareAuthenticator(.es256)
        var (pending, challenge) = pending(.registration)
        let response = try authenticator.register(challenge, relyingParty: relyingParty, origin: "https://tools.example.com.evil.test")
        #expect(throws: PasskeyError.wrongOrigin) { try response.verify(against: &pending, at: now, relyingParty: relyingParty, userVerification: true) }

        let passkey = try registered(authenticator)
        for origin in ["https://evil.test", "http://tools.example.com", "https://tools.example.com:8443"] {
            #expect(throws: PasskeyError.wrongOrigin) {
                try signIn(passkey) { try authenticator.assert($0, relyingParty: relyingParty, userHandle: userHandle, origin: origin) }
            }
        }
        #expect(throws: PasskeyError.wrongOrigin) {
            try signIn(passkey) { challenge in
                var response = try authenticator.assert(challenge, relyingParty: relyingParty, userHandle: userHandle)
                let framed = SoftwareAuthenticator.clientData("webauthn.get", challenge: challenge.bytes, origin: relyingParty.origin, crossOrigin: true)
                response.clientData = Base64Url.encode(framed)
                return response
            }
        }
    }

    @Test func authenticatorDataForAnotherRelyingPartyIsRefused() throws {
        let authenticator = try SoftwareAuthenticator(.es256)
        var (pending, challenge) = pending(.registration)
        let response = try authenticator.register(challenge, relyingParty: relyingParty, relyingPartyId: "example.com")
        #expect(throws: PasskeyError.wrongRelyingParty) {
            try response.verify(against: &pending, at: now, relyingParty: relyingParty, userVerification: true)
        }
        let passkey = try registered(authenticator)
        #expect(throws: PasskeyError.wrongRelyingParty) {
            try signIn(passkey) { try authenticator.assert($0, relyingParty: relyingParty, userHandle: userHandle, relyingPartyId: "evil.test") }
        }
    }

    @Test func aChallengeIsUsedOnceForItsOwnCeremonyWhileItIsFresh() throws {
        var authenticator = try SoftwareAuthenticator(.es256)
        let passkey = try registered(authenticator)
        authenticator.signCount += 1
        var (pending, challenge) = pending(.signIn)
        let response = try authenticator.assert(challenge, relyingParty: relyingParty, userHandle: userHandle)
        func verify(_ response: PasskeyAssertionResponse, purpose: PasskeyChallenge.Purpose = .signIn, at time: Int64? = nil) throws -> PasskeyUse {
            try response.verify(
                purpose: purpose, against: &pending, at: time ?? now, relyingParty: relyingParty, publicKey: passkey.publicKey,
                signCount: passkey.signCount, userHandle: userHandle, userVerification: true)
        }
        _ = try verify(response)
        #expect(throws: PasskeyError.wrongChallenge, "reused") { try verify(response) }

        // A challenge this session was never given (another session's, or made up).
        let foreign = PasskeyChallenge(purpose: .signIn, now: now)
        #expect(throws: PasskeyError.wrongChallenge, "foreign") {
            try verify(try authenticator.assert(foreign, relyingParty: relyingParty, userHandle: userHandle))
        }
        // One given for the second step is not a sign-in's.
        let secondStep = PasskeyChallenge(purpose: .secondFactor, now: now)
        pending.add(secondStep)
        #expect(throws: PasskeyError.wrongChallenge, "another purpose") {
            try verify(try authenticator.assert(secondStep, relyingParty: relyingParty, userHandle: userHandle))
        }
        // Expired, and the answer it was spent on stays refused.
        let old = PasskeyChallenge(purpose: .signIn, now: now)
        pending.add(old)
        let late = try authenticator.assert(old, relyingParty: relyingParty, userHandle: userHandle)
        #expect(throws: PasskeyError.wrongChallenge, "expired") { try verify(late, at: now + PasskeyChallenge.lifetime) }
        #expect(throws: PasskeyError.wrongChallenge, "gone once expired") { try verify(late) }
        // A registration's challenge does not sign in, nor a sign-in's register.
        var registration = PendingPasskeyChallenges()
        let signInChallenge = PasskeyChallenge(purpose: .signIn, now: now)
        registration.add(signInChallenge)
        let made = try authenticator.register(signInChallenge, relyingParty: relyingParty)
        #expect(throws: PasskeyError.wrongChallenge) {
            try made.verify(against: &registration, at: now, relyingParty: relyingParty, userVerification: true)
        }
    }

    @Test func clientDataOfTheOtherCeremonyIsRefused() throws {
        let authenticator = try SoftwareAuthenticator(.es256)
        var (pending, challenge) = pending(.registration)
        let response = try authenticator.register(challenge, relyingParty: relyingParty, type: "webauthn.get")
        #expect(throws: PasskeyError.wrongCeremony) {
            try response.verify(against: &pending, at: now, relyingParty: relyingParty, userVerification: true)
        }
        let passkey = try registered(authenticator)
        #expect(throws: PasskeyError.wrongCeremony) {
            try signIn(passkey) { try authenticator.assert($0, relyingParty: relyingParty, userHandle: userHandle, type: "webauthn.create") }
        }
    }

    @Test(arguments: PasskeyAlgorithm.allCases)
    func aSignatureThatIsNotTheKeysIsRefused(_ algorithm: PasskeyAlgorithm) throws {
        var authenticator = try SoftwareAuthenticator(algorithm)
        let passkey = try registered(authenticator)
        authenticator.signCount += 1
        #expect(throws: PasskeyError.badSignature, "one bit changed") {
            try signIn(passkey) { challenge in
                var response = try authenticator.assert(challenge, relyingParty: relyingParty, userHandle: userHandle)
                var signature = Base64Url.decode(response.signature)!
                signature[signature.count / 2] ^= 0x01
                response.signature = Base64Url.encode(signature)
                return response
            }
        }
        var other = try SoftwareAuthenticator(algorithm)
        other.signCount = authenticator.signCount
        #expect(throws: PasskeyError.badSignature, "another key's") {
            try signIn(passkey) { try other.assert($0, relyingParty: relyingParty, userHandle: userHandle) }
        }
        #expect(throws: PasskeyError.badSignature, "client data changed after signing") {
            try signIn(passkey) { challenge in
                var response = try authenticator.assert(challenge, relyingParty: relyingParty, userHandle: userHandle)
                let changed = SoftwareAuthenticator.clientData("webauthn.get", challenge: challenge.bytes, origin: relyingParty.origin, extra: ",\"x\":1")
                response.clientData = Base64Url.encode(changed)
                return response
            }
        }
    }

    @Test func aCounterThatDoesNotGrowIsRefusedAsAPossibleCopy() throws {
        var authenticator = try SoftwareAuthenticator(.es256, signCount: 10)
        let passkey = try registered(authenticator)
        for count: UInt32 in [10, 9, 0] {
            authenticator.signCount = count
            do {
                _ = try signIn(passkey) { try authenticator.assert($0, relyingParty: relyingParty, userHandle: userHandle) }
                Issue.record("a counter of \(count) after 10 was taken")
            } catch let error as PasskeyError {
                #expect(error == .counterWentBack)
                #expect(error.isPossibleClone)
            }
        }
        // An authenticator that keeps no counter (a synced passkey) stays at zero.
        let synced = try SoftwareAuthenticator(.es256, signCount: 0)
        let syncedPasskey = try registered(synced)
        for _ in 0..<2 {
            #expect(try signIn(syncedPasskey) { try synced.assert($0, relyingParty: relyingParty, userHandle: userHandle) }.signCount == 0)
        }
    }

    @Test func presenceIsRequiredAlwaysAndVerificationWhereAsked() throws {
        var authenticator = try SoftwareAuthenticator(.es256)
        var (pending, challenge) = pending(.registration)
        let absent = try authenticator.register(challenge, relyingParty: relyingParty, flags: 0x04)
        #expect(throws: PasskeyError.userNotPresent) { try absent.verify(against: &pending, at: now, relyingParty: relyingParty, userVerification: false) }
        pending.add(challenge)
        let unverified = try authenticator.register(challenge, relyingParty: relyingParty, flags: 0x01)
        #expect(throws: PasskeyError.userNotVerified) {
            try unverified.verify(against: &pending, at: now, relyingParty: relyingParty, userVerification: true)
        }

        let passkey = try registered(authenticator)
        authenticator.signCount += 1
        #expect(throws: PasskeyError.userNotPresent) {
            try signIn(passkey, userVerification: false) { try authenticator.assert($0, relyingParty: relyingParty, userHandle: userHandle, flags: 0x04) }
        }
        #expect(throws: PasskeyError.userNotVerified) {
            try signIn(passkey) { try authenticator.assert($0, relyingParty: relyingParty, userHandle: userHandle, flags: 0x01) }
        }
        let presentOnly = try signIn(passkey, userVerification: false) {
            try authenticator.assert($0, relyingParty: relyingParty, userHandle: userHandle, flags: 0x01)
        }
        #expect(!presentOnly.userVerified)
    }

    @Test func anAnswerAboutAnotherCredentialOrUserIsRefused() throws {
        let authenticator = try SoftwareAuthenticator(.es256)
        var (pending, challenge) = pending(.registration)
        var response = try authenticator.register(challenge, relyingParty: relyingParty)
        response.credentialId = Base64Url.encode([UInt8](repeating: 1, count: 16))
        #expect(throws: PasskeyError.wrongCredential) { try response.verify(against: &pending, at: now, relyingParty: relyingParty, userVerification: true) }

        let passkey = try registered(authenticator)
        #expect(throws: PasskeyError.wrongCredential) {
            try signIn(passkey) { try authenticator.assert($0, relyingParty: relyingParty, userHandle: Array(repeating: 8, count: 32)) }
        }
    }

    @Test func malformedOrOversizedFieldsAreRefusedBeforeTheyAreParsed() throws {
        let authenticator = try SoftwareAuthenticator(.es256)
        func register(_ change: (inout PasskeyRegistrationResponse, PasskeyChallenge) throws -> Void) throws -> NewPasskey {
            var (pending, challenge) = pending(.registration)
            var response = try authenticator.register(challenge, relyingParty: relyingParty)
            try change(&response, challenge)
            return try response.verify(against: &pending, at: now, relyingParty: relyingParty, userVerification: true)
        }
        func clientData(_ text: String) -> String { Base64Url.encode(Array(text.utf8)) }
        #expect(throws: PasskeyError.malformed("client data"), "not base64url") { try register { response, _ in response.clientData = "e30=" } }
        #expect(throws: PasskeyError.malformed("client data"), "not JSON") { try register { response, _ in response.clientData = clientData("{\"type\":") } }
        #expect(throws: PasskeyError.malformed("client data"), "invalid UTF-8") {
            try register { response, _ in response.clientData = Base64Url.encode([0x7B, 0x22, 0xC3, 0x28, 0x22, 0x7D]) }
        }
        #expect(throws: PasskeyError.malformed("client data"), "empty") { try register { response, _ in response.clientData = "" } }
        #expect(throws: PasskeyError.tooLong("client data")) {
            try register { response, _ in response.clientData = String(repeating: "A", count: 8000) }
        }
        #expect(throws: PasskeyError.wrongChallenge, "a challenge that is not base64url") {
            try register { response, _ in response.clientData = clientData("{\"type\":\"webauthn.create\",\"challenge\":\"++\",\"origin\":\"x\"}") }
        }
        #expect(throws: PasskeyError.tooLong("authenticator data")) {
            try register { response, _ in response.authenticatorData = String(repeating: "A", count: 6000) }
        }
        #expect(throws: PasskeyError.tooLong("credential id")) {
            try register { response, _ in response.credentialId = Base64Url.encode([UInt8](repeating: 1, count: 1024)) }
        }
        for cut in [1, 10, 37, 60] {
            #expect(throws: PasskeyError.malformed("authenticator data"), "cut to \(cut) bytes") {
                try register { response, _ in
                    response.authenticatorData = Base64Url.encode(Base64Url.decode(response.authenticatorData)!.prefix(cut))
                }
            }
        }
        #expect(throws: PasskeyError.malformed("authenticator data"), "truncated CBOR") {
            try register { response, _ in response.authenticatorData = Base64Url.encode(Base64Url.decode(response.authenticatorData)!.dropLast(5)) }
        }
        #expect(throws: PasskeyError.unsupportedAlgorithm, "ES384") { try register { response, _ in response.algorithm = -35 } }
        #expect(throws: PasskeyError.unsupportedAlgorithm, "out of range") { try register { response, _ in response.algorithm = Int.max } }
        #expect(throws: PasskeyError.malformed("authenticator data"), "a key of another algorithm than the one posted") {
            try register { response, _ in response.algorithm = -8 }
        }
        let spoiledKeys: [(String, [UInt8])] = [
            ("a P-256 key without its y", Cbor.map([(1, .int(2)), (3, .int(-7)), (-1, .int(1)), (-2, .bytes([UInt8](repeating: 1, count: 32)))])),
            ("a point off the curve", Cbor.map([(1, .int(2)), (3, .int(-7)), (-1, .int(1)), (-2, .bytes([UInt8](repeating: 1, count: 32))), (-3, .bytes([UInt8](repeating: 2, count: 32)))])),
            ("an ES384 key", Cbor.map([(1, .int(2)), (3, .int(-35)), (-1, .int(2)), (-2, .bytes([UInt8](repeating: 1, count: 48))), (-3, .bytes([UInt8](repeating: 2, count: 48)))])),
            ("no map", Cbor.int(-7)),
        ]
        for (label, key) in spoiledKeys {
            #expect(throws: PasskeyError.malformed("authenticator data"), "\(label)") {
                try register { response, _ in
                    response.authenticatorData = Base64Url.encode(try authenticator.registrationData(relyingPartyId: relyingParty.id, coseKey: key))
                }
            }
        }

        let passkey = try registered(authenticator)
        #expect(throws: PasskeyError.tooLong("signature")) {
            try signIn(passkey) { challenge in
                var response = try authenticator.assert(challenge, relyingParty: relyingParty, userHandle: userHandle)
                response.signature = String(repeating: "A", count: 2000)
                return response
            }
        }
        #expect(throws: PasskeyError.malformed("signature")) {
            try signIn(passkey) { challenge in
                var response = try authenticator.assert(challenge, relyingParty: relyingParty, userHandle: userHandle)
                response.signature = "not base64url!"
                return response
            }
        }
        #expect(throws: PasskeyError.tooLong("user handle")) {
            try signIn(passkey) { try authenticator.assert($0, relyingParty: relyingParty, userHandle: Array(repeating: 7, count: 65)) }
        }
        #expect(throws: PasskeyError.malformed("authenticator data"), "truncated") {
            try signIn(passkey) { challenge in
                var response = try authenticator.assert(challenge, relyingParty: relyingParty, userHandle: userHandle)
                response.authenticatorData = Base64Url.encode(Base64Url.decode(response.authenticatorData)!.prefix(36))
                return response
            }
        }
    }

    /// Every byte of a registration's authenticator data changed to random values, many times:
    /// each answer is refused with a reason or taken, and nothing crashes.
    @Test func spoiledAuthenticatorDataNeverCrashesTheParser() throws {
        for algorithm in PasskeyAlgorithm.allCases {
            let authenticator = try SoftwareAuthenticator(algorithm)
            let challenge = PasskeyChallenge(purpose: .registration, now: now)
            let valid = try authenticator.register(challenge, relyingParty: relyingParty)
            let data = Base64Url.decode(valid.authenticatorData)!
            var generator = SystemRandomNumberGenerator()
            for round in 0..<600 {
                var spoiled = data
                for _ in 0..<(1 + round % 4) {
                    spoiled[Int.random(in: 37..<spoiled.count, using: &generator)] = UInt8.random(in: 0...255, using: &generator)
                }
                if round % 5 == 0 { spoiled = Array(spoiled.prefix(Int.random(in: 37..<spoiled.count, using: &generator))) }
                var pending = PendingPasskeyChallenges()
                pending.add(challenge)
                var response = valid
                response.authenticatorData = Base64Url.encode(spoiled)
                _ = try? response.verify(against: &pending, at: now, relyingParty: relyingParty, userVerification: true)
            }
        }
    }
}
