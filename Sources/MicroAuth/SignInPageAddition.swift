import MicroCore

/// A block another plugin adds to the sign-in page beside the password form, such as a button
/// that signs in with a key held by the device, and the script it needs.
///
/// A plugin adds one with ``MicroCore/App/addSignInPageAddition(_:)``. The built-in page shows
/// it; an app's own `signin` template shows the additions with
/// `{{#signInAdditions}}{{{html}}}{{#script}}<script src="{{script}}" defer></script>{{/script}}{{/signInAdditions}}`
/// and gives its username field `autocomplete="{{usernameAutocomplete}}"`.
public struct SignInPageAddition: Sendable {
    /// The block's HTML for `request` (its paths and CSRF token), every value in it escaped by
    /// the plugin; nil where it has nothing to offer this request.
    public var html: @Sendable (Request) -> String?
    /// The app's own path of the one same-origin script the block needs, loaded with `defer`
    /// (the Content-Security-Policy allows no inline script); nil for none.
    public var scriptPath: String?
    /// A token the username field's `autocomplete` gains when the block is shown (`webauthn`:
    /// the browser offers the device's keys in the field's autofill).
    public var usernameAutocomplete: String?

    /// An addition of `html`, with its script at `scriptPath`.
    public init(scriptPath: String? = nil, usernameAutocomplete: String? = nil, html: @escaping @Sendable (Request) -> String?) {
        self.html = html
        self.scriptPath = scriptPath
        self.usernameAutocomplete = usernameAutocomplete
    }
}

/// The additions the app's plugins made, in the order they were made.
package final class SignInPageAdditions: Sendable {
    private let all = Locked<[SignInPageAddition]>([])

    package var list: [SignInPageAddition] { all.withLock { $0 } }

    func add(_ addition: SignInPageAddition) { all.withLock { $0.append(addition) } }

    /// What one request's page shows: each block with its script's URL, and the username
    /// field's `autocomplete`. Kept in the request once made: the template asks for both.
    struct Shown: RequestStorageKey, Sendable {
        typealias Value = Shown
        var blocks: [(html: String, script: String?)] = []
        var usernameAutocomplete = "username"
    }

    /// What `request`'s page shows, made once per request.
    func shown(for request: Request) -> Shown {
        if let shown = request.storage[Shown.self] { return shown }
        var shown = Shown()
        for addition in list {
            guard let html = addition.html(request) else { continue }
            shown.blocks.append((html, addition.scriptPath.map(request.url)))
            if let token = addition.usernameAutocomplete { shown.usernameAutocomplete += " " + token }
        }
        request.storage[Shown.self] = shown
        return shown
    }
}

extension App {
    /// Adds a block to the sign-in page beside the password form (``SignInPageAddition``).
    public func addSignInPageAddition(_ addition: SignInPageAddition) {
        signInPageAdditions.add(addition)
    }

    /// The sign-in page's additions, made when first asked for.
    var signInPageAdditions: SignInPageAdditions { updateService(SignInPageAdditions()) }
}
