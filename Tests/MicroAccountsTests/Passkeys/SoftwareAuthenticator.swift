import Crypto
import CryptoExtras
import Foundation
import MicroAccounts
import MicroCore
import MicroPasskeys

/// An authenticator in software for crafted ceremonies: it makes a credential of each algorithm
/// Micro accepts and writes the authenticator data, client data and signatures a browser would
/// post, each of which a test may then spoil in one way.
struct SoftwareAuthenticator {
    enum Key {
        case es256(P256.Signing.PrivateKey)
        case edDsa(Curve25519.Signing.PrivateKey)
        case rs256(_RSA.Signing.PrivateKey)
    }

    let key: Key
    let credentialId: [UInt8]
    /// The counter the next signature carries; zero means the authenticator keeps none.
    var signCount: UInt32

    init(_ algorithm: PasskeyAlgorithm, signCount: UInt32 = 1) throws {
        switch algorithm {
        case .es256: key = .es256(P256.Signing.PrivateKey())
        case .edDsa: key = .edDsa(Curve25519.Signing.PrivateKey())
        case .rs256: key = .rs256(try _RSA.Signing.PrivateKey(keySize: .bits2048))
        }
        credentialId = (0..<16).map { _ in UInt8.random(in: 0...255) }
        self.signCount = signCount
    }

    var algorithm: PasskeyAlgorithm {
        switch key {
        case .es256: .es256
        case .edDsa: .edDsa
        case .rs256: .rs256
        }
    }

    /// The credential's public key as a COSE key (RFC 9053), in CBOR.
    func coseKey() throws -> [UInt8] {
        switch key {
        case .es256(let key):
            let raw = Array(key.publicKey.rawRepresentation)
            return Cbor.map([(1, .int(2)), (3, .int(-7)), (-1, .int(1)), (-2, .bytes(Array(raw[0..<32]))), (-3, .bytes(Array(raw[32...])))])
        case .edDsa(let key):
            return Cbor.map([(1, .int(1)), (3, .int(-8)), (-1, .int(6)), (-2, .bytes(Array(key.publicKey.rawRepresentation)))])
        case .rs256(let key):
            let primitives = try key.publicKey.getKeyPrimitives()
            return Cbor.map([(1, .int(3)), (3, .int(-257)), (-1, .bytes(Array(primitives.modulus))), (-2, .bytes(Array(primitives.publicExponent)))])
        }
    }

    /// Flags: user present, user verified.
    static let presentAndVerified: UInt8 = 0x05

    /// The authenticator data of a registration for `relyingPartyId`: the header, then the
    /// attested credential (an AAGUID of zeros, as with no attestation), then its key.
    func registrationData(relyingPartyId: String, flags: UInt8 = presentAndVerified, coseKey: [UInt8]? = nil) throws -> [UInt8] {
        header(relyingPartyId: relyingPartyId, flags: flags | 0x40) + [UInt8](repeating: 0, count: 16)
            + [UInt8(credentialId.count >> 8), UInt8(credentialId.count & 0xFF)] + credentialId + (try coseKey ?? self.coseKey())
    }

    /// The authenticator data of a sign-in for `relyingPartyId`.
    func assertionData(relyingPartyId: String, flags: UInt8 = presentAndVerified) -> [UInt8] {
        header(relyingPartyId: relyingPartyId, flags: flags)
    }

    private func header(relyingPartyId: String, flags: UInt8) -> [UInt8] {
        Array(SHA256.hash(data: Array(relyingPartyId.utf8))) + [flags]
            + [UInt8(signCount >> 24), UInt8(signCount >> 16 & 0xFF), UInt8(signCount >> 8 & 0xFF), UInt8(signCount & 0xFF)]
    }

    /// The signature over `authenticatorData` and the SHA-256 of `clientData`, as WebAuthn
    /// signs: DER for ECDSA, raw for Ed25519, PKCS #1 v1.5 for RSA.
    func sign(authenticatorData: [UInt8], clientData: [UInt8]) throws -> [UInt8] {
        let message = authenticatorData + Array(SHA256.hash(data: clientData))
        switch key {
        case .es256(let key): return Array(try key.signature(for: message).derRepresentation)
        case .edDsa(let key): return Array(try key.signature(for: message))
        case .rs256(let key): return Array(try key.signature(for: message, padding: .insecurePKCS1v1_5).rawRepresentation)
        }
    }

    /// The client data JSON a browser writes.
    static func clientData(
        _ type: String, challenge: [UInt8], origin: String, crossOrigin: Bool = false, extra: String = ""
    ) -> [UInt8] {
        Array("{\"type\":\"\(type)\",\"challenge\":\"\(Base64Url.encode(challenge))\",\"origin\":\"\(origin)\",\"crossOrigin\":\(crossOrigin)\(extra)}".utf8)
    }

    /// A registration answer to `challenge`, as the passkeys page posts it.
    func register(
        _ challenge: PasskeyChallenge, relyingParty: PasskeyRelyingParty, origin: String? = nil, type: String = "webauthn.create",
        flags: UInt8 = presentAndVerified, relyingPartyId: String? = nil
    ) throws -> PasskeyRegistrationResponse {
        let clientData = Self.clientData(type, challenge: challenge.bytes, origin: origin ?? relyingParty.origin)
        let data = try registrationData(relyingPartyId: relyingPartyId ?? relyingParty.id, flags: flags)
        return PasskeyRegistrationResponse(
            credentialId: Base64Url.encode(credentialId), clientData: Base64Url.encode(clientData), authenticatorData: Base64Url.encode(data),
            algorithm: Int(algorithm.rawValue))
    }

    /// A sign-in answer to `challenge`, as the sign-in page posts it.
    func assert(
        _ challenge: PasskeyChallenge, relyingParty: PasskeyRelyingParty, userHandle: [UInt8], origin: String? = nil,
        type: String = "webauthn.get", flags: UInt8 = presentAndVerified, relyingPartyId: String? = nil
    ) throws -> PasskeyAssertionResponse {
        let clientData = Self.clientData(type, challenge: challenge.bytes, origin: origin ?? relyingParty.origin)
        let data = assertionData(relyingPartyId: relyingPartyId ?? relyingParty.id, flags: flags)
        return PasskeyAssertionResponse(
            credentialId: Base64Url.encode(credentialId), clientData: Base64Url.encode(clientData), authenticatorData: Base64Url.encode(data),
            signature: Base64Url.encode(try sign(authenticatorData: data, clientData: clientData)), userHandle: Base64Url.encode(userHandle))
    }
}
