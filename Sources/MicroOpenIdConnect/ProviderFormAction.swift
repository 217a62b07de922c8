#if OpenIdConnect
import Foundation

/// The provider's origin in the `form-action` of the app's Content-Security-Policy.
///
/// Browsers check `form-action` on every redirect a form's submission follows: the sign-in
/// button's POST answers a redirect to the provider (and sign-out's, with a provider logout),
/// which `form-action 'self'` alone would stop in the browser, the flow never reaching the
/// provider.
enum ProviderFormAction {
    /// `policy` with `url`'s origin added to its `form-action` directive; unchanged when it
    /// has none (then forms may go anywhere) or already allows that origin or any.
    static func adding(_ url: String, to policy: String) -> String {
        guard let origin = origin(of: url) else { return policy }
        var directives = policy.split(separator: ";", omittingEmptySubsequences: false).map(String.init)
        guard let index = directives.firstIndex(where: { name(of: $0) == "form-action" }) else { return policy }
        let sources = directives[index].split(whereSeparator: \.isWhitespace).dropFirst().map { $0.lowercased() }
        guard !sources.contains(origin), !sources.contains("*"), !sources.contains("'none'") else { return policy }
        directives[index] = directives[index].replacingOccurrences(of: "\\s+$", with: "", options: .regularExpression) + " " + origin
        return directives.joined(separator: ";")
    }

    /// `scheme://host[:port]`, lowercased; nil for a URL without both.
    static func origin(of url: String) -> String? {
        guard let parts = URLComponents(string: url), let scheme = parts.scheme?.lowercased(), let host = parts.percentEncodedHost?.lowercased(),
            !host.isEmpty
        else { return nil }
        return "\(scheme)://\(host)" + (parts.port.map { ":\($0)" } ?? "")
    }

    private static func name(of directive: String) -> String {
        directive.split(whereSeparator: \.isWhitespace).first.map { $0.lowercased() } ?? ""
    }
}
#endif
