import Foundation
import MicroCore

/// The options a page hands to `navigator.credentials.create()` and `.get()`, as WebAuthn
/// Level 3's JSON forms (`PublicKeyCredentialCreationOptionsJSON`, `...RequestOptionsJSON`):
/// binary values in base64url, which the page's script decodes (or the browser's
/// `PublicKeyCredential.parseCreationOptionsFromJSON`, where it has it).
public enum PasskeyOptions {
    /// How long the browser's dialog waits, in milliseconds: the challenge's lifetime.
    static let timeout = Int(PasskeyChallenge.lifetime) * 1000

    private struct Descriptor: Encodable {
        let type = "public-key"
        let id: String
    }

    private struct CreationOptions: Encodable {
        struct Party: Encodable {
            let id: String
            let name: String
        }
        struct UserEntity: Encodable {
            let id: String
            let name: String
            let displayName: String
        }
        struct Parameter: Encodable {
            let type = "public-key"
            let alg: Int32
        }
        struct Selection: Encodable {
            let residentKey = "required"
            let requireResidentKey = true
            let userVerification = "preferred"
        }
        let rp: Party
        let user: UserEntity
        let challenge: String
        let pubKeyCredParams = PasskeyAlgorithm.allCases.map { Parameter(alg: $0.coseIdentifier) }
        let timeout = PasskeyOptions.timeout
        let excludeCredentials: [Descriptor]
        let authenticatorSelection = Selection()
        let attestation = "none"
    }

    private struct RequestOptions: Encodable {
        let challenge: String
        let rpId: String
        let timeout = PasskeyOptions.timeout
        let userVerification: String
        let allowCredentials: [Descriptor]
    }

    /// The options to add a passkey for `username` (shown as `displayName`) at `relyingParty`,
    /// named `appName` in the browser's dialog: a discoverable credential (so that signing in
    /// needs no name typed), no attestation, ES256, EdDSA or RS256, and none of the
    /// authenticators that hold one of `existing` already.
    public static func creation(
        challenge: PasskeyChallenge, relyingParty: PasskeyRelyingParty, appName: String, userHandle: [UInt8], username: String,
        displayName: String, existing: [[UInt8]]
    ) -> String {
        encode(
            CreationOptions(
                rp: .init(id: relyingParty.id, name: appName),
                user: .init(id: Base64Url.encode(userHandle), name: username, displayName: displayName), challenge: challenge.text,
                excludeCredentials: existing.map { Descriptor(id: Base64Url.encode($0)) }))
    }

    /// The options to sign in at `relyingParty` with a passkey: any of the person's (none
    /// listed, for a sign-in with no name typed), or one of `allowed` (a second step, whose
    /// user is known). `userVerification` asks for the person's PIN, fingerprint or face
    /// (`required`) or takes it where the authenticator has it (`preferred`).
    public static func request(
        challenge: PasskeyChallenge, relyingParty: PasskeyRelyingParty, allowed: [[UInt8]] = [], userVerification: Bool = false
    ) -> String {
        encode(
            RequestOptions(
                challenge: challenge.text, rpId: relyingParty.id, userVerification: userVerification ? "required" : "preferred",
                allowCredentials: allowed.map { Descriptor(id: Base64Url.encode($0)) }))
    }

    private static func encode(_ value: some Encodable) -> String {
        let encoder = JSONEncoder()
        encoder.outputFormatting = [.sortedKeys, .withoutEscapingSlashes]
        // Every value is a String, an Int or a Bool: encoding cannot fail.
        return (try? String(decoding: encoder.encode(value), as: UTF8.self)) ?? "{}"
    }
}
