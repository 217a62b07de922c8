import MicroCore

/// Another answer the second step's page offers beside the code, after a password (passkeys'
/// "Use a passkey instead"): what the page shows for a user (`html` and its `script`), or nil
/// where it has none for them. Kept as a service of the app, set by the module that offers it.
package struct SecondStepAlternative: Sendable {
    package let offer: @Sendable (Request, _ username: String) async -> [String: String]?

    package init(offer: @escaping @Sendable (Request, _ username: String) async -> [String: String]?) {
        self.offer = offer
    }
}
