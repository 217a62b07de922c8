import MicroCore

/// A way to sign in beside the password, such as single sign-on with OpenID Connect: its
/// button on the sign-in page, and whether the sessions it signed in still stand.
///
/// A plugin adds one with ``MicroCore/App/addExternalSignIn(_:)`` and signs users in with
/// ``MicroCore/Request/signIn(_:credentialStamp:via:detail:)``; the sessions then follow every rule of
/// password sessions (expiry, revocation, the store's stamp).
public struct ExternalSignIn: Sendable {
    /// Names the way in sessions and logs (`oidc`): ASCII letters, digits, `-` and `_`.
    public var source: String
    /// The sign-in page's button (`Sign in with Okta`).
    public var label: String
    /// The app's own path the button's form posts to (`/auth/oidc`), with the CSRF token;
    /// empty for a way every request carries (a sign-in proxy's header), which has no button.
    public var action: String
    /// Whether a session this way signed in for a user the store does not know (or whose
    /// stamp differs from the store's) still stands; the store's stamp is tried first.
    public var acceptsSession: @Sendable (User, CredentialStamp) -> Bool
    /// Whether its sign-in proves the person at the browser, as a password typed does (a
    /// provider that asked them): the users page takes it as the admin's recent proof. False
    /// for a way that signs in again unasked (a sign-in proxy's header).
    public var provesPerson = true

    /// A way in named `source`, its button `label` posting to `action`.
    public init(source: String, label: String, action: String, acceptsSession: @escaping @Sendable (User, CredentialStamp) -> Bool = { _, _ in false }) {
        self.source = source
        self.label = label
        self.action = action
        self.acceptsSession = acceptsSession
    }
}

/// The app's external ways in, shared by ``Authentication`` (session checks, the sign-in
/// page) and the plugins that add them, in whichever order the app uses them.
final class ExternalSignIns: Sendable {
    private let all = Locked<[ExternalSignIn]>([])

    var list: [ExternalSignIn] { all.withLock { $0 } }

    /// The ways the sign-in page shows a button for.
    var buttons: [ExternalSignIn] { all.withLock { $0.filter { !$0.action.isEmpty } } }

    func add(_ way: ExternalSignIn) {
        all.withLock { list in
            list.removeAll { $0.source == way.source }
            list.append(way)
        }
    }

    func way(_ source: String) -> ExternalSignIn? {
        all.withLock { $0.first { $0.source == source } }
    }
}

extension Request {
    /// Whether the session was signed in by a way beside the password that proves the person
    /// at the browser (``ExternalSignIn/provesPerson``; a source no way was added for counts
    /// as one, as a plugin's own ``signIn(_:credentialStamp:via:detail:)`` did before).
    public var isSignedInByProvingWay: Bool {
        guard let source = signInSource else { return false }
        return service(ExternalSignIns.self)?.way(source)?.provesPerson ?? true
    }
}

extension App {
    /// Adds a way to sign in beside the password: its button on the sign-in page, and the
    /// check of the sessions it signs in.
    public func addExternalSignIn(_ way: ExternalSignIn) {
        externalSignIns.add(way)
    }

    /// The app's ways in, made when first asked for.
    var externalSignIns: ExternalSignIns { updateService(ExternalSignIns()) }
}
