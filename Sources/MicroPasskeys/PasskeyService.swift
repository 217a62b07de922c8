import Logging
import MicroAccounts
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
    /// The relying party of each origin recently asked for, or its absence: the sign-in page
    /// asks on every view, and reading an origin costs a fair part of rendering that page. An
    /// app answers for a few origins; a client naming many (ports, IP literals) only evicts.
    /// An entry holds the key and an id and origin no longer than it. By the exact bytes,
    /// since the host is the client's: a KELVIN SIGN must not find `K`'s.
    private let relyingParties = BoundedCache<ExactString, KnownRelyingParty>(capacity: 64, byteLimit: 64 * 512) { key, _ in
        128 + 3 * key.text.utf8.count
    }

    init(settings: PasskeySettings, store: PasskeyStore?, accountsPrefix: String, logger: Logger) {
        self.settings = settings
        self.store = store
        self.accountsPrefix = accountsPrefix
        self.logger = logger
    }

    /// An origin's relying party as the cache keeps it: nil is an answer too.
    private struct KnownRelyingParty: Sendable {
        let party: PasskeyRelyingParty?
    }

    /// The account page's path.
    var pagePath: String { accountsPrefix + "/passkeys" }

    /// Where the account page's script asks for a confirmation's options and posts its answer.
    var confirmPath: String { accountsPrefix + "/passkeys/confirm" }

    /// The page script's path.
    var scriptPath: String { accountsPrefix + "/passkeys.js" }

    /// Who `request`'s passkeys are for: the app's public URL, else the request's own origin;
    /// nil where a browser would refuse a passkey (``PasskeyRelyingParty/init(origin:)``).
    ///
    /// Without a public URL, also nil when the origin's port is not the one the request came
    /// to. A passkey is bound to a host, not a port: any page on another port of the same
    /// host (a second local app, a dev server) may ask the browser for it, and relay the
    /// answer with that port in `Host`, which the client writes. The port the connection
    /// reached is the server's, so an answer made for another one is never expected. Behind
    /// a proxy, which listens on another port, passkeys need the public URL.
    func relyingParty(for request: Request) -> PasskeyRelyingParty? {
        let origin = ExactString(String(request.absoluteUrl("/").dropLast()))
        let party: PasskeyRelyingParty?
        if let known = relyingParties.value(for: origin) {
            party = known.party
        } else {
            party = PasskeyRelyingParty(origin: origin.text)
            relyingParties.remember(KnownRelyingParty(party: party), for: origin)
        }
        guard let party, request.settings.publicUrl == nil, let localPort = request.localPort else { return party }
        return party.port == localPort ? party : nil
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
