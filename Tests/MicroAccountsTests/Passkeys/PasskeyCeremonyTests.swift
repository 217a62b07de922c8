import Foundation
import MicroAccounts
import MicroCore
import MicroPasskeys
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

    /// Registers `authenticator`'s credential for ann and gives what the store would keep.
    func registered(_ authenticator: SoftwareAuthenticator, flags: UInt8 = SoftwareAuthenticator.presentAndVerified) throws -> Passkey {
        var (pending, challenge) = pending(.registration)
        let response = try authenticator.register(challenge, relyingParty: relyingParty, flags: flags)
        let made = try response.verify(against: &pending, at: now, relyingParty: relyingParty, userVerification: true)
        #expect(made.challenge == challenge, "the challenge to spend")
        return Passkey(
            credentialId: made.credentialId, username: "ann", userHandle: userHandle, name: "key", publicKey: made.publicKey,
            signCount: made.signCount, backupEligible: made.backupEligible, createdAt: now)
    }

    /// Verifies the registration answer `make` gives to a fresh pending challenge.
    func register(_ make: (PasskeyChallenge) throws -> PasskeyRegistrationResponse) throws -> NewPasskey {
        var (pending, challenge) = pending(.registration)
        return try make(challenge).verify(against: &pending, at: now, relyingParty: relyingParty, userVerification: true)
    }

    /// Verifies the answer `make` gives to a fresh pending challenge for `purpose`, with `passkey`.
    func signIn(
        _ passkey: Passkey, purpose: PasskeyChallenge.Purpose = .signIn, user: String? = nil, userVerification: Bool = true,
        _ make: (PasskeyChallenge) throws -> PasskeyAssertionResponse
    ) throws -> PasskeyUse {
        var (pending, challenge) = pending(purpose)
        let response = try make(challenge)
        let use = try response.verify(
            purpose: purpose, against: &pending, at: now, relyingParty: relyingParty, passkey: passkey, user: user,
            userVerification: userVerification)
        #expect(use.challenge == challenge, "the challenge to spend")
        return use
    }

    @Test(arguments: PasskeyAlgorithm.allCases)
    func aPasskeyOfEachAlgorithmIsRegisteredAndSignsIn(_ algorithm: PasskeyAlgorithm) throws {
        var authenticator = try SoftwareAuthenticator(algorithm, signCount: 5)
        let passkey = try registered(authenticator)
        #expect(passkey.credentialId == authenticator.credentialId)
        #expect(passkey.publicKey.algorithm == algorithm)
        #expect(passkey.signCount == 5)
        #expect(!passkey.backupEligible)
        authenticator.signCount = 6
        let use = try signIn(passkey) { try authenticator.assert($0, relyingParty: relyingParty, userHandle: userHandle) }
        #expect(use.signCount == 6 && use.userVerified)
    }

    @Test func anAnswerForAnotherOriginOrInAFrameOfAnotherSiteIsRefused() throws {
        let authenticator = try SoftwareAuthenticator(.es256)
        #expect(throws: PasskeyError.wrongOrigin) {
            try register { try authenticator.register($0, relyingParty: relyingParty, origin: "https://tools.example.com.evil.test") }
        }

        let passkey = try registered(authenticator)
        for origin in ["https://evil.test", "http://tools.example.com", "https://tools.example.com:8443"] {
            #expect(throws: PasskeyError.wrongOrigin) {
                try signIn(passkey) { try authenticator.assert($0, relyingParty: relyingParty, userHandle: userHandle, origin: origin) }
            }
        }
        for (crossOrigin, extra) in [(true, ""), (false, ",\"topOrigin\":\"https://evil.test\"")] {
            #expect(throws: PasskeyError.wrongOrigin, "in a frame of another site") {
                try signIn(passkey) { challenge in
                    var response = try authenticator.assert(challenge, relyingParty: relyingParty, userHandle: userHandle)
                    let framed = SoftwareAuthenticator.clientData(
                        "webauthn.get", challenge: challenge.bytes, origin: relyingParty.origin, crossOrigin: crossOrigin, extra: extra)
                    response.clientData = Base64Url.encode(framed)
                    return response
                }
            }
        }
    }

    @Test func authenticatorDataForAnotherRelyingPartyIsRefused() throws {
        let authenticator = try SoftwareAuthenticator(.es256)
        #expect(throws: PasskeyError.wrongRelyingParty) {
            try register { try authenticator.register($0, relyingParty: relyingParty, relyingPartyId: "example.com") }
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
        func verify(_ response: PasskeyAssertionResponse, at time: Int64? = nil) throws -> PasskeyUse {
            try response.verify(
                purpose: .signIn, against: &pending, at: time ?? now, relyingParty: relyingParty, passkey: passkey, user: nil,
                userVerification: true)
        }
        _ = try verify(response)
        #expect(throws: PasskeyError.wrongChallenge, "reused") { try verify(response) }

        // A challenge this session was never given (another session's, or made up), while it
        // waits for one of its own.
        pending.add(PasskeyChallenge(purpose: .signIn, now: now))
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
        #expect(throws: PasskeyError.wrongCeremony) {
            try register { try authenticator.register($0, relyingParty: relyingParty, type: "webauthn.get") }
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
        #expect(throws: PasskeyError.badSignature, "another key's, under this credential id") {
            try signIn(passkey) { challenge in
                var response = try other.assert(challenge, relyingParty: relyingParty, userHandle: userHandle)
                response.credentialId = Base64Url.encode(authenticator.credentialId)
                return response
            }
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
        var authenticator = try SoftwareAuthenticator(.es256)
        var (pending, challenge) = pending(.registration)
        var response = try authenticator.register(challenge, relyingParty: relyingParty)
        response.credentialId = Base64Url.encode([UInt8](repeating: 1, count: 16))
        #expect(throws: PasskeyError.wrongCredential) { try response.verify(against: &pending, at: now, relyingParty: relyingParty, userVerification: true) }

        let passkey = try registered(authenticator)
        #expect(throws: PasskeyError.wrongCredential, "another user's handle") {
            try signIn(passkey) { try authenticator.assert($0, relyingParty: relyingParty, userHandle: Array(repeating: 8, count: 32)) }
        }
        var other = passkey
        other.credentialId = [UInt8](repeating: 9, count: 16)
        #expect(throws: PasskeyError.wrongCredential, "verified with a passkey of another credential id") {
            try signIn(other) { try authenticator.assert($0, relyingParty: relyingParty, userHandle: userHandle) }
        }
        // A sign-in names no user beforehand: the handle is what says whose passkey answered.
        #expect(throws: PasskeyError.malformed("user handle"), "no handle") {
            try signIn(passkey) { try authenticator.assert($0, relyingParty: relyingParty, userHandle: []) }
        }
        // The second step names its user: the passkey must be theirs, handle or not.
        authenticator.signCount += 1
        #expect(throws: PasskeyError.wrongCredential, "another user's passkey") {
            try signIn(passkey, purpose: .secondFactor, user: "bob") { try authenticator.assert($0, relyingParty: relyingParty, userHandle: []) }
        }
        #expect(throws: PasskeyError.wrongCredential, "no user named") {
            try signIn(passkey, purpose: .secondFactor) { try authenticator.assert($0, relyingParty: relyingParty, userHandle: []) }
        }
        #expect(try signIn(passkey, purpose: .secondFactor, user: "ann") { try authenticator.assert($0, relyingParty: relyingParty, userHandle: []) }.userVerified)
    }

    @Test func backupFlagsMustAgreeWithEachOtherAndWithTheStoredPasskey() throws {
        var authenticator = try SoftwareAuthenticator(.es256)
        var (pending, challenge) = pending(.registration)
        let backedUpButNotEligible = try authenticator.register(challenge, relyingParty: relyingParty, flags: 0x15)
        #expect(throws: PasskeyError.malformed("authenticator data")) {
            try backedUpButNotEligible.verify(against: &pending, at: now, relyingParty: relyingParty, userVerification: true)
        }
        let synced = try registered(authenticator, flags: 0x1D)
        #expect(synced.backupEligible)
        authenticator.signCount += 1
        #expect(throws: PasskeyError.wrongCredential, "no longer eligible") {
            try signIn(synced) { try authenticator.assert($0, relyingParty: relyingParty, userHandle: userHandle) }
        }
        #expect(try signIn(synced) { try authenticator.assert($0, relyingParty: relyingParty, userHandle: userHandle, flags: 0x0D) }.signCount == 2)
    }

    /// An RSA COSE key of a real modulus with `exponent` in place of its own.
    func rsaKey(exponent: [UInt8]?) throws -> [UInt8] {
        guard case .rs256(let key) = try SoftwareAuthenticator(.rs256).key else { return [] }
        var pairs: [(Int, Cbor.Value)] = [(1, .int(3)), (3, .int(-257)), (-1, .bytes(Array(try key.publicKey.getKeyPrimitives().modulus)))]
        if let exponent { pairs.append((-2, .bytes(exponent))) }
        return Cbor.map(pairs)
    }

    @Test func malformedOrOversizedFieldsAreRefusedBeforeTheyAreParsed() throws {
        let authenticator = try SoftwareAuthenticator(.es256)
        func spoiled(_ change: (inout PasskeyRegistrationResponse, PasskeyChallenge) throws -> Void) throws -> NewPasskey {
            var (pending, challenge) = pending(.registration)
            var response = try authenticator.register(challenge, relyingParty: relyingParty)
            try change(&response, challenge)
            return try response.verify(against: &pending, at: now, relyingParty: relyingParty, userVerification: true)
        }
        func clientData(_ text: String) -> String { Base64Url.encode(Array(text.utf8)) }
        #expect(throws: PasskeyError.malformed("client data"), "not base64url") { try spoiled { response, _ in response.clientData = "e30=" } }
        #expect(throws: PasskeyError.malformed("client data"), "not JSON") { try spoiled { response, _ in response.clientData = clientData("{\"type\":") } }
        #expect(throws: PasskeyError.malformed("client data"), "invalid UTF-8") {
            try spoiled { response, _ in response.clientData = Base64Url.encode([0x7B, 0x22, 0xC3, 0x28, 0x22, 0x7D]) }
        }
        #expect(throws: PasskeyError.malformed("client data"), "empty") { try spoiled { response, _ in response.clientData = "" } }
        #expect(throws: PasskeyError.tooLong("client data")) {
            try spoiled { response, _ in response.clientData = String(repeating: "A", count: 8000) }
        }
        #expect(throws: PasskeyError.wrongChallenge, "a challenge that is not base64url") {
            try spoiled { response, _ in response.clientData = clientData("{\"type\":\"webauthn.create\",\"challenge\":\"++\",\"origin\":\"x\"}") }
        }
        #expect(throws: PasskeyError.tooLong("authenticator data")) {
            try spoiled { response, _ in response.authenticatorData = String(repeating: "A", count: 6000) }
        }
        #expect(throws: PasskeyError.tooLong("credential id")) {
            try spoiled { response, _ in response.credentialId = Base64Url.encode([UInt8](repeating: 1, count: 1024)) }
        }
        for cut in [1, 10, 37, 60] {
            #expect(throws: PasskeyError.malformed("authenticator data"), "cut to \(cut) bytes") {
                try spoiled { response, _ in
                    response.authenticatorData = Base64Url.encode(Base64Url.decode(response.authenticatorData)!.prefix(cut))
                }
            }
        }
        #expect(throws: PasskeyError.malformed("authenticator data"), "truncated CBOR") {
            try spoiled { response, _ in response.authenticatorData = Base64Url.encode(Base64Url.decode(response.authenticatorData)!.dropLast(5)) }
        }
        #expect(throws: PasskeyError.unsupportedAlgorithm, "ES384") { try spoiled { response, _ in response.algorithm = -35 } }
        #expect(throws: PasskeyError.unsupportedAlgorithm, "out of range") { try spoiled { response, _ in response.algorithm = Int.max } }
        #expect(throws: PasskeyError.malformed("authenticator data"), "a key of another algorithm than the one posted") {
            try spoiled { response, _ in response.algorithm = -8 }
        }
        let spoiledKeys: [(String, [UInt8])] = [
            ("a P-256 key without its y", Cbor.map([(1, .int(2)), (3, .int(-7)), (-1, .int(1)), (-2, .bytes([UInt8](repeating: 1, count: 32)))])),
            ("a point off the curve", Cbor.map([(1, .int(2)), (3, .int(-7)), (-1, .int(1)), (-2, .bytes([UInt8](repeating: 1, count: 32))), (-3, .bytes([UInt8](repeating: 2, count: 32)))])),
            ("an ES384 key", Cbor.map([(1, .int(2)), (3, .int(-35)), (-1, .int(2)), (-2, .bytes([UInt8](repeating: 1, count: 48))), (-3, .bytes([UInt8](repeating: 2, count: 48)))])),
            ("no map", Cbor.int(-7)),
            ("an RSA key with the exponent 1", try rsaKey(exponent: [0, 0, 1])),
            ("an RSA key without its exponent", try rsaKey(exponent: nil)),
        ]
        for (label, key) in spoiledKeys {
            #expect(throws: PasskeyError.malformed("authenticator data"), "\(label)") {
                try spoiled { response, _ in
                    response.authenticatorData = Base64Url.encode(try authenticator.registrationData(relyingPartyId: relyingParty.id, coseKey: key))
                    if label.hasPrefix("an RSA") { response.algorithm = -257 }
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

    /// CBOR whose header claims far more than the data holds is refused before libcbor, which
    /// allocates for the claim, reads it; extensions as authenticators write them are taken.
    @Test func authenticatorDataClaimingMoreThanItHoldsIsRefused() throws {
        let authenticator = try SoftwareAuthenticator(.es256)
        let hugeMap: [UInt8] = [0xBB, 0x10, 0, 0, 0, 0, 0, 0, 0, 0x01, 0x02]
        #expect(throws: PasskeyError.malformed("authenticator data"), "a key claiming 2^60 pairs") {
            try register { challenge in
                var response = try authenticator.register(challenge, relyingParty: relyingParty)
                response.authenticatorData = Base64Url.encode(try authenticator.registrationData(relyingPartyId: relyingParty.id, coseKey: hugeMap))
                return response
            }
        }
        let withExtensions = SoftwareAuthenticator.presentAndVerified | 0x80
        let made = try register { challenge in
            var response = try authenticator.register(challenge, relyingParty: relyingParty)
            let data = try authenticator.registrationData(relyingPartyId: relyingParty.id, flags: withExtensions) + CborBoundsTests.extensions
            response.authenticatorData = Base64Url.encode(data)
            return response
        }
        #expect(made.credentialId == authenticator.credentialId, "a key with extensions")
        for (what, extensions) in [("claiming 2^60 pairs", hugeMap), ("indefinite", [0xBF, 0x01, 0x02, 0xFF])] {
            #expect(throws: PasskeyError.malformed("authenticator data"), "a sign-in's extensions \(what)") {
                try signIn(registered(authenticator)) { challenge in
                    var response = try authenticator.assert(challenge, relyingParty: relyingParty, userHandle: userHandle)
                    let data = authenticator.assertionData(relyingPartyId: relyingParty.id, flags: withExtensions) + extensions
                    response.authenticatorData = Base64Url.encode(data)
                    return response
                }
            }
        }
    }

    /// After the key comes only what the flag ED announces: an extensions map when it is set,
    /// nothing when it is clear.
    @Test func aRegistrationWithBytesTheFlagsDoNotAnnounceIsRefused() throws {
        let authenticator = try SoftwareAuthenticator(.es256)
        let plain = SoftwareAuthenticator.presentAndVerified, withExtensions = plain | 0x80
        let cases: [(String, UInt8, [UInt8])] = [
            ("extensions with the flag clear", plain, CborBoundsTests.extensions),
            ("a stray integer with the flag clear", plain, [0x01]),
            ("the flag set and no extensions", withExtensions, []),
            ("extensions that are not a map", withExtensions, [0x01]),
            ("bytes after the extensions", withExtensions, CborBoundsTests.extensions + [0x01]),
        ]
        for (what, flags, after) in cases {
            #expect(throws: PasskeyError.malformed("authenticator data"), "\(what)") {
                try register { challenge in
                    var response = try authenticator.register(challenge, relyingParty: relyingParty)
                    let data = try authenticator.registrationData(relyingPartyId: relyingParty.id, flags: flags) + after
                    response.authenticatorData = Base64Url.encode(data)
                    return response
                }
            }
        }
    }

    /// Bytes of a registration's and a sign-in's authenticator data changed to random values,
    /// many times: each answer is refused with a reason or, where the change missed what is
    /// checked, taken with the credential it was made for; nothing crashes.
    @Test func spoiledAuthenticatorDataNeverCrashesTheParser() throws {
        var generator = SystemRandomNumberGenerator()
        func spoil(_ data: [UInt8], round: Int, from start: Int) -> [UInt8] {
            var spoiled = data
            for _ in 0..<(1 + round % 4) {
                spoiled[Int.random(in: start..<spoiled.count, using: &generator)] = UInt8.random(in: 0...255, using: &generator)
            }
            if round % 5 == 0 { spoiled = Array(spoiled.prefix(Int.random(in: 0..<spoiled.count, using: &generator))) }
            return spoiled
        }
        for algorithm in PasskeyAlgorithm.allCases {
            var authenticator = try SoftwareAuthenticator(algorithm)
            let challenge = PasskeyChallenge(purpose: .registration, now: now)
            let valid = try authenticator.register(challenge, relyingParty: relyingParty)
            let data = Base64Url.decode(valid.authenticatorData)!
            for round in 0..<600 {
                var pending = PendingPasskeyChallenges()
                pending.add(challenge)
                var response = valid
                response.authenticatorData = Base64Url.encode(spoil(data, round: round, from: 37))
                if let made = try? response.verify(against: &pending, at: now, relyingParty: relyingParty, userVerification: true) {
                    #expect(made.credentialId == authenticator.credentialId)
                }
            }
            let passkey = try registered(authenticator)
            authenticator.signCount += 1
            for round in 0..<300 {
                _ = try? signIn(passkey) { challenge in
                    var response = try authenticator.assert(challenge, relyingParty: relyingParty, userHandle: userHandle)
                    let assertion = Base64Url.decode(response.authenticatorData)! + [0xA1, 0x61, 0x78, 0x01]
                    response.authenticatorData = Base64Url.encode(spoil(assertion, round: round, from: 0))
                    return response
                }
            }
        }
    }
}
