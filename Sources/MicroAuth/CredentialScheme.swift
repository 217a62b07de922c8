import MicroCore

/// A way a script proves who it is in the `Authorization` header: HTTP Basic (``Authentication``
/// adds it when it accepts passwords there), an API token's `Bearer` (the account pages' tokens).
/// A script's `401` names every scheme the app accepts, in its `WWW-Authenticate` and its
/// message, and no other.
public struct CredentialScheme: Sendable {
    /// The scheme's name (`Basic`, `Bearer`): one entry per name.
    public var name: String
    /// The challenge in `WWW-Authenticate`: `Bearer realm="Micro"`.
    public var challenge: String
    /// What to send, for the `401`'s message: "an API token (Authorization: Bearer)".
    public var phrase: String

    /// A scheme named `name`, challenged as `challenge`, described as `phrase`.
    public init(name: String, challenge: String, phrase: String) {
        self.name = name
        self.challenge = challenge
        self.phrase = phrase
    }
}
