import MicroCore

/// Another answer the second step's page offers beside the code, after a password (passkeys'
/// "Use a passkey instead"). Kept as a service of the app: the module that offers it registers
/// one (`app.register(SecondStepAlternative { ... })`), whose route signs the person in once
/// the answer is right, from ``MicroCore/Request/userAtSecondStep()``.
public struct SecondStepAlternative: Sendable {
    /// What the page shows for a user: `html` (a form, escaped by the offer) and the `script`
    /// it needs, or nil where there is none for them.
    public let offer: @Sendable (Request, _ username: String) async -> [String: String]?

    /// An alternative that `offer` shows.
    public init(offer: @escaping @Sendable (Request, _ username: String) async -> [String: String]?) {
        self.offer = offer
    }
}
