/// Why a passkey ceremony was refused. A struct over a private enum, so that reasons can be
/// added without breaking a caller's `switch`; compare with the static members.
///
/// ``message`` is for the person: it names the field or the check, never a key or a user. A
/// sign-in shows none of them, only the wrong-password message, so that a refusal says no more
/// about an account than a wrong password does.
public struct PasskeyError: Error, Sendable, Equatable, CustomStringConvertible {
    private enum Reason: Equatable {
        case malformed(String)
        case tooLong(String)
        case wrongCeremony
        case wrongChallenge
        case wrongOrigin
        case wrongRelyingParty
        case userNotPresent
        case userNotVerified
        case unsupportedAlgorithm
        case wrongCredential
        case badSignature
        case counterWentBack
    }

    private let reason: Reason

    /// A field that is not what it should be: not base64url, not JSON, not authenticator data.
    public static func malformed(_ field: String) -> PasskeyError { PasskeyError(reason: .malformed(field)) }
    /// A field longer than `PasskeyLimits` allows.
    public static func tooLong(_ field: String) -> PasskeyError { PasskeyError(reason: .tooLong(field)) }
    /// Client data of another ceremony: `webauthn.get` where `webauthn.create` was expected.
    public static let wrongCeremony = PasskeyError(reason: .wrongCeremony)
    /// A challenge that is not the one this session is waiting for: foreign, spent or expired.
    public static let wrongChallenge = PasskeyError(reason: .wrongChallenge)
    /// Client data written by a page of another origin.
    public static let wrongOrigin = PasskeyError(reason: .wrongOrigin)
    /// Authenticator data for another relying party id.
    public static let wrongRelyingParty = PasskeyError(reason: .wrongRelyingParty)
    /// The authenticator did not see a person (the user-present flag is off).
    public static let userNotPresent = PasskeyError(reason: .userNotPresent)
    /// The authenticator did not verify the person (no PIN, fingerprint or face) where that
    /// was required.
    public static let userNotVerified = PasskeyError(reason: .userNotVerified)
    /// A key of an algorithm other than ES256, EdDSA and RS256.
    public static let unsupportedAlgorithm = PasskeyError(reason: .unsupportedAlgorithm)
    /// A credential id or user handle that is not the one the rest of the answer is about.
    public static let wrongCredential = PasskeyError(reason: .wrongCredential)
    /// A signature the stored public key does not verify.
    public static let badSignature = PasskeyError(reason: .badSignature)
    /// A signature counter that did not grow: the key may have been copied.
    public static let counterWentBack = PasskeyError(reason: .counterWentBack)

    /// Whether a field was not what a browser sends (not base64url, not JSON, too long): the
    /// client's mistake, not a refusal of the passkey.
    public var isMalformed: Bool {
        switch reason {
        case .malformed, .tooLong: true
        default: false
        }
    }

    /// Whether this may be a copied authenticator, to be logged as such.
    public var isPossibleClone: Bool { reason == .counterWentBack }

    /// One sentence for the person.
    public var message: String {
        switch reason {
        case .malformed(let field): "The passkey's \(field) is not valid."
        case .tooLong(let field): "The passkey's \(field) is too long."
        case .wrongCeremony: "The passkey answered another kind of request."
        case .wrongChallenge: "This passkey request has expired or was already used. Try again."
        case .wrongOrigin: "The passkey answered a page of another site."
        case .wrongRelyingParty: "The passkey is for another site."
        case .userNotPresent: "The passkey did not confirm that you were there."
        case .userNotVerified: "The passkey did not verify you: use its PIN, fingerprint or face."
        case .unsupportedAlgorithm: "The passkey uses an algorithm Micro does not accept (ES256, EdDSA and RS256 are)."
        case .wrongCredential: "The passkey's answer is about another credential."
        case .badSignature: "The passkey's signature is not valid."
        case .counterWentBack: "The passkey's counter went back: it may have been copied."
        }
    }

    /// The message.
    public var description: String { message }
}
