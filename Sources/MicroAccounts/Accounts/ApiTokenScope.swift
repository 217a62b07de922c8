import MicroAuth
import MicroCore

/// A scope an API token may be made with: its name (what ``/MicroAuth/MicroCore/Request/requireScope(_:)``
/// asks for) and what the tokens page says of it beside its checkbox.
///
/// Every token reads: it is made ``read`` (`GET`, `HEAD` and `OPTIONS` only) or ``write``
/// (any method), and with any of the app's own scopes (``ApiTokenSettings/scopes``), which its
/// routes then ask for.
///
/// ```swift
/// var accounts = Accounts(database: database)
/// accounts.apiTokens.scopes = [ApiTokenScope("deploy", description: "Start a deployment (with write).")]
/// ```
public struct ApiTokenScope: Sendable, Hashable {
    /// The name, by ``/MicroAuth/ScopeName``'s rule: `deploy`, `notes:export`.
    public var name: String
    /// What the form shows beside it.
    public var description: String

    /// The scope `name`, described as `description`. A name outside the rule, or one of the
    /// built-in ones, stops the app from starting.
    public init(_ name: String, description: String) {
        self.name = name
        self.description = description
    }

    /// Read-only: the token is refused on any method but `GET`, `HEAD` and `OPTIONS`.
    public static let read = ApiTokenScope(ScopeName.read, description: "Read only: GET, HEAD and OPTIONS requests; anything else is refused.")
    /// Read and write: any request its user may make.
    public static let write = ApiTokenScope(ScopeName.write, description: "Read and write: any request you may make.")
    /// The built-in ones, one of which every token has.
    public static let builtIn = [read, write]
}
