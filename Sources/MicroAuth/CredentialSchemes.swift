import MicroCore

/// The `Authorization` schemes an app accepts, in the order they were added: filled at start-up
/// by the plugins that check them, read by a script's `401`.
package final class CredentialSchemes: Sendable {
    private let all = Locked<[CredentialScheme]>([])

    package var list: [CredentialScheme] { all.withLock { $0 } }

    func add(_ scheme: CredentialScheme) {
        all.withLock { list in
            list.removeAll { $0.name.lowercased() == scheme.name.lowercased() }
            list.append(scheme)
        }
    }

    /// The `401` of a script that sent no credentials a scheme accepted: every scheme's
    /// challenge, and what to send.
    var unauthorized: HttpError {
        let schemes = list
        guard !schemes.isEmpty else {
            return HttpError(.unauthorized, "Sign in first: this API answers signed-in sessions only.")
        }
        let phrases = schemes.map(\.phrase)
        let what = phrases.count == 1 ? phrases[0] : phrases.dropLast().joined(separator: ", ") + " or " + phrases[phrases.count - 1]
        return HttpError(.unauthorized, "Sign in first: send \(what).", headers: ["WWW-Authenticate": schemes.map(\.challenge).joined(separator: ", ")])
    }
}

extension App {
    /// Adds a scheme of the `Authorization` header the app accepts (its check is the plugin's
    /// own), so that a script's `401` names it.
    public func addCredentialScheme(_ scheme: CredentialScheme) {
        credentialSchemes.add(scheme)
    }

    /// The app's schemes, made when first asked for.
    package var credentialSchemes: CredentialSchemes { updateService(CredentialSchemes()) }
}
