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

    /// The store, where `request`'s app offers passkeys: with a database, and where passwords
    /// sign in. An app that signs in by single sign-on alone leaves who may come in to its
    /// provider: a passkey made here would outlive the person's account there.
    func store(offeredFor request: Request) -> PasskeyStore? {
        request.authenticationSettings?.acceptsPasswords == false ? nil : store
    }

    /// The second step's "Use a passkey instead" for `username` (`html`, `script`): nil when
    /// they have no passkey, where a browser would refuse one, or when the passkeys cannot be
    /// read (the code still can: the page must not fail for it).
    func secondStep(_ request: Request, for username: String) async -> [String: String]? {
        guard let store = store(offeredFor: request), relyingParty(for: request) != nil else { return nil }
        do {
            guard try await !store.passkeys(of: Username.key(username)).isEmpty else { return nil }
        } catch {
            logger.error("The second step offers no passkey: the passkeys cannot be read: \(error)")
            return nil
        }
        return ["html": PasskeySignInButton.secondStep(request, self), "script": request.url(scriptPath)]
    }
}
