import Foundation
import Logging
import MicroCore

/// Signs in the person a sign-in proxy in front of the app vouches for (oauth2-proxy or
/// nginx's `auth_request`, Apache's mod_auth_openidc, authentik's outpost): Grafana's
/// `[auth.proxy]`, Django's `RemoteUserMiddleware`.
///
/// ```swift
/// app.settings.trustedProxies = ["10.0.0.5"]
/// app.use(Authentication(users: users))
/// app.use(ProxySignIn())                   // X-Forwarded-User, the store's users only
/// ```
///
/// The header counts only on a connection from one of ``trustedAddresses`` (by default
/// ``/MicroCore/Settings/trustedProxies``): from anywhere else it is ignored (the request is anonymous) and logged at most once a
/// minute, since anyone can write a header. The identity is the request's, not the
/// session's: every request is checked, before its CSRF token and before any filter, and
/// when the proxy names someone other than the session's user, the session is emptied (no
/// page, flash or CSRF token of the previous person survives) and the named user is signed
/// in, once per browser session (a `signed_in` event with detail `proxy`, where the app
/// uses the account pages). A session the proxy signed in ends when a request comes without
/// the proxy's word for it. A client that keeps no cookie and is no browser (a script through
/// the proxy) is signed in anew by each request, and its session is recorded only once its
/// cookie comes back: a script's requests are not each a session on the sessions page.
///
/// Such a session proves no password (``MicroCore/Request/isAuthenticatedByPassword`` is
/// false), so the users page's changes still ask for the admin's password.
public struct ProxySignIn: AppPlugin, Sendable {
    /// The header holding the username (`X-Forwarded-User`, oauth2-proxy's
    /// `X-Auth-Request-User`, `Remote-User`), or with ``identify`` the one it reads (a JWT's):
    /// the answers vary on it.
    public var userHeader = "X-Forwarded-User"
    /// The header holding the user's groups, comma-separated, for users from outside the
    /// store (``ProxyUsers/any``); nil: none.
    public var groupsHeader: String?
    /// Whom the proxy may name.
    public var users = ProxyUsers.existing
    /// The addresses (or ranges, `10.0.0.0/24`) whose header is believed: the sign-in proxy's
    /// own, each within ``/MicroCore/Settings/trustedProxies``. Nil: every one of those, which
    /// may also hold a load balancer or a CDN whose forwarding headers are believed but who
    /// must not name people.
    public var trustedAddresses: [String]?
    /// Where sign-out leads (the proxy's own sign-out, `/oauth2/sign_out`), so that the proxy
    /// forgets the person too; nil: the app's sign-out page, after which the proxy's next
    /// request signs the person in again.
    public var signOutUrl: String?
    /// The sign-out path of the app's ``Authentication`` (for ``signOutUrl``).
    public var signOutPath = "/signout"
    /// Reads the identity from the request instead of ``userHeader`` (a JWT the proxy signed);
    /// nil when the request carries none. Throws the answer to a request whose identity is
    /// refused (`401` for a bad token, `503` when its keys cannot be read).
    public var identify: (@Sendable (Request) async throws -> ProxyIdentity?)?

    /// The source sessions signed in this way carry.
    public static let source = "proxy"
    /// The longest header value read, in bytes.
    public static let maximumHeaderBytes = 1024

    /// A proxy sending the user in `X-Forwarded-User`.
    public init() {}

    /// What is wrong with the settings; nil when nothing.
    public var problem: String? {
        if !Self.isHeaderName(userHeader) { return "ProxySignIn.userHeader '\(userHeader)' is not a header name." }
        if let groupsHeader, !Self.isHeaderName(groupsHeader) { return "ProxySignIn.groupsHeader '\(groupsHeader)' is not a header name." }
        if let trustedAddresses {
            if trustedAddresses.isEmpty { return "ProxySignIn.trustedAddresses is empty: the header would be believed from nobody." }
            if let bad = trustedAddresses.first(where: { AddressRange($0) == nil }) {
                return "ProxySignIn.trustedAddresses has '\(bad)', which is not an IP address or a range such as 10.0.0.0/24."
            }
        }
        if let signOutUrl, !((signOutUrl.hasPrefix("/") && !signOutUrl.hasPrefix("//")) || signOutUrl.hasPrefix("https://") || signOutUrl.hasPrefix("http://")) {
            return "ProxySignIn.signOutUrl '\(signOutUrl)' is neither a path nor an http(s) URL."
        }
        return nil
    }

    /// What is wrong with the door's addresses against the app's trusted proxies: the header is
    /// read only from those, and each of the door's own must be one of them, or the client's
    /// address behind it (`X-Forwarded-For`) would not be read, and every person would be one
    /// client to the sign-in throttle.
    static func doorProblem(_ doors: [String]?, trustedProxies: [String]) -> String? {
        if trustedProxies.isEmpty {
            return "ProxySignIn reads a header only from trusted proxies, and settings.trustedProxies (MICRO_TRUSTED_PROXIES) is empty."
        }
        let trusted = trustedProxies.compactMap(AddressRange.init)
        for door in doors ?? [] {
            guard let range = AddressRange(door) else { continue }
            if !trusted.contains(where: { $0.contains(range) }) {
                return "ProxySignIn.trustedAddresses (MICRO_PROXY_TRUSTED_ADDRESSES) has '\(door)', which is not within settings.trustedProxies "
                    + "(MICRO_TRUSTED_PROXIES): list the sign-in proxy there too, so that the address of the person behind it is read."
            }
        }
        return nil
    }

    /// Whether `name` is a header name (RFC 9110's token).
    static func isHeaderName(_ name: String) -> Bool {
        !name.isEmpty && name.utf8.count <= 100
            && name.unicodeScalars.allSatisfy { $0.isASCII && ($0.properties.isAlphabetic || ("0"..."9").contains($0) || "!#$%&'*+-.^_`|~".unicodeScalars.contains($0)) }
    }

    /// Adds the identity check of every request, and the sign-out's destination.
    public func install(in app: App) {
        if let problem { app.addProblem(problem) }
        if identify == nil {
            let doors = trustedAddresses
            app.addStartupCheck("the sign-in proxy among the trusted proxies") { settings in
                (Self.doorProblem(doors, trustedProxies: settings.trustedProxies), nil)
            }
        }
        let users = users
        var way = ExternalSignIn(source: Self.source, label: "", action: "") { user, stamp in
            users == .any && stamp == ProxyCheck.outsideStamp(user)
        }
        // It signs in again, unasked, whoever sits at the browser.
        way.provesPerson = false
        app.addExternalSignIn(way)
        let check = ProxyCheck(settings: self)
        app.addIdentityCheck("the person a sign-in proxy names (\(identify == nil ? userHeader : "its JWT"))") { request in
            try await check.run(request)
        }
        if let signOutUrl {
            let signOut = signOutPath + "/?"
            app.after(signOut) { request in
                guard request.method == .POST, request.response.status == .seeOther else { return }
                request.response.headers.replaceOrAdd(name: "Location", value: signOutUrl)
            }
        }
    }
}
