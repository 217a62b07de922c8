import MicroAccounts
import MicroCore

/// A passkey as `GET /account/passkeys` lists it to a client asking for JSON.
struct PasskeyJson: Encodable, Sendable {
    /// The credential id, base64url: the `:id` of its rename and remove paths.
    let id: String
    let name: String
    let createdAt: String
    /// Nil when it never signed in.
    let lastUsedAt: String?
    /// Where it was added from: the address, the browser in words, and its `User-Agent` with
    /// controls and text-direction characters written as escapes (a client may show it).
    let addedFromAddress: String
    let addedFromBrowser: String
    let addedFromUserAgent: String

    init(_ passkey: Passkey) {
        id = Base64Url.encode(passkey.credentialId)
        name = passkey.name
        createdAt = AccountTime.iso(passkey.createdAt)
        lastUsedAt = passkey.lastUsedAt > 0 ? AccountTime.iso(passkey.lastUsedAt) : nil
        addedFromAddress = ControlEscapingLogHandler.escape(passkey.addedFromAddress)
        addedFromBrowser = passkey.addedFromUserAgent.isEmpty ? "" : UserAgentSummary.describe(passkey.addedFromUserAgent)
        addedFromUserAgent = ControlEscapingLogHandler.escape(passkey.addedFromUserAgent)
    }
}
