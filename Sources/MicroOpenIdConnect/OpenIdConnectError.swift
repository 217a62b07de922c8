#if OpenIdConnect
import MicroCore

/// Why a single sign-on did not succeed, and how the browser is answered: a value, never a
/// crash or a `500`. Grows without breaking callers (a struct over a private enum).
public struct OpenIdConnectError: Error, Sendable, CustomStringConvertible {
    private enum Kind: Sendable, Equatable {
        case invalidState
        case rejected
        case notAllowed
        case providerUnavailable
    }

    private let kind: Kind
    /// For the log: what exactly failed (never shown to the browser for a rejected token).
    public let reason: String
    /// What the log says instead of ``reason``, where the page's words must name nobody
    /// while the operator needs to know who (a user linked to another subject).
    private let logged: String?

    private init(_ kind: Kind, _ reason: String, logged: String? = nil) {
        self.kind = kind
        self.reason = reason
        self.logged = logged
    }

    /// What the log says of it.
    public var logReason: String { logged ?? reason }

    /// The callback's `state` is missing, unknown, expired or used already: `400`.
    public static func invalidState(_ reason: String) -> Self { Self(.invalidState, reason) }
    /// The provider's answer failed a check (a token's signature, issuer, audience...): `401`.
    public static func rejected(_ reason: String) -> Self { Self(.rejected, reason) }
    /// The provider vouched for someone this app does not let in: `403`, saying why.
    public static func notAllowed(_ reason: String) -> Self { Self(.notAllowed, reason) }
    /// ``notAllowed(_:)`` saying `reason` to the browser and `logged` to the log.
    public static func notAllowed(_ reason: String, logging logged: String) -> Self { Self(.notAllowed, reason, logged: logged) }
    /// The provider did not answer in time, or answered with an outage: `503` with `Retry-After`.
    public static func providerUnavailable(_ reason: String) -> Self { Self(.providerUnavailable, reason) }

    /// Whether it is a ``rejected(_:)`` error (the tests tell the kinds apart).
    public var isRejection: Bool { kind == .rejected }
    /// Whether it is a ``providerUnavailable(_:)`` error.
    public var isProviderUnavailable: Bool { kind == .providerUnavailable }

    public var description: String { reason }

    /// The page the browser gets: the reason of a refusal it can act on, nothing of the rest.
    var httpError: HttpError {
        switch kind {
        case .invalidState:
            HttpError(.badRequest, "This sign-in could not be completed: its link was used already, has expired, or was started in another browser. Please sign in again.")
        case .rejected:
            HttpError(.unauthorized, "Single sign-on failed. Please try again; if it keeps failing, ask an administrator to look at the app's log.")
        case .notAllowed:
            HttpError(.forbidden, "Single sign-on failed: \(reason)")
        case .providerUnavailable:
            HttpError(.serviceUnavailable, "Single sign-on is unavailable right now: the identity provider does not answer. Please try again in a minute.",
                headers: ["Retry-After": "30"])
        }
    }
}
#endif
