import Logging
import MicroAuth
import MicroCore

/// The passkeys of the account pages: their store and settings, found by the pages and the
/// sign-in through the app's services.
final class PasskeyService: Sendable {
    let settings: PasskeySettings
    /// Nil without a database for the account pages: then no one has passkeys.
    let store: PasskeyStore?
    let accountsPrefix: String
    let logger: Logger

    init(settings: PasskeySettings, store: PasskeyStore?, accountsPrefix: String, logger: Logger) {
        self.settings = settings
        self.store = store
        self.accountsPrefix = accountsPrefix
        self.logger = logger
    }

    /// The account page's path.
    var pagePath: String { accountsPrefix + "/passkeys" }

    /// The page script's path.
    var scriptPath: String { accountsPrefix + "/passkeys.js" }

    /// Who `request`'s passkeys are for: the app's public URL, else the request's own origin;
    /// nil where a browser would refuse a passkey (``PasskeyRelyingParty/init(origin:)``).
    func relyingParty(for request: Request) -> PasskeyRelyingParty? {
        let root = request.absoluteUrl("/")
        return PasskeyRelyingParty(origin: String(root.dropLast()))
    }

    /// The second step's "Use a passkey instead" for `username` (`html`, `script`): nil when
    /// they have no passkey, or where a browser would refuse one.
    func secondStep(_ request: Request, for username: String) async throws -> [String: String]? {
        guard let store, relyingParty(for: request) != nil, try await !store.passkeys(of: Username.key(username)).isEmpty else { return nil }
        return ["html": PasskeySignInButton.secondStep(request, self), "script": request.url(scriptPath)]
    }
}
