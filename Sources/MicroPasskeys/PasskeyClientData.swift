import Foundation

/// The client data a browser writes for a ceremony and the authenticator signs over (its
/// SHA-256): the ceremony's type, the challenge and the page's origin.
public struct PasskeyClientData: Sendable {
    /// The ceremony a page asks for: `webauthn.create` to register, `webauthn.get` to sign in.
    public enum Ceremony: String, Sendable {
        /// A registration.
        case create = "webauthn.create"
        /// A sign-in, or a confirmation.
        case get = "webauthn.get"
    }

    private struct Json: Decodable {
        let type: String
        let challenge: String
        let origin: String
        let crossOrigin: Bool?
        let topOrigin: String?
    }

    /// The JSON text's bytes, exactly as sent: what was signed.
    public let bytes: [UInt8]
    /// The challenge the browser was given.
    public let challenge: [UInt8]
    private let json: Json

    /// Reads `text`, the base64url of the client data JSON; throws when it is too long, not
    /// base64url, not JSON of the three fields, or names no challenge.
    public init(_ text: String) throws(PasskeyError) {
        bytes = try PasskeyField.decode(text, "client data", limit: PasskeyLimits.clientData)
        do {
            json = try JSONDecoder().decode(Json.self, from: Data(bytes))
        } catch {
            throw .malformed("client data")
        }
        guard let challenge = try? PasskeyField.decode(json.challenge, "challenge", limit: 64) else { throw .wrongChallenge }
        self.challenge = challenge
    }

    /// Checks that it was written for `ceremony` by a page of `relyingParty`'s origin, at the
    /// top of the browser's window (not in a frame of another site).
    func check(_ ceremony: Ceremony, for relyingParty: PasskeyRelyingParty) throws(PasskeyError) {
        guard json.type == ceremony.rawValue else { throw .wrongCeremony }
        guard json.origin == relyingParty.origin else { throw .wrongOrigin }
        guard json.crossOrigin != true, json.topOrigin == nil || json.topOrigin == relyingParty.origin else { throw .wrongOrigin }
    }
}
