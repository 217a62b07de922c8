/// An event of the app's own, for its record of who did what: `sample_updated` of `sample S-17`
/// by `ann`. Recorded with ``MicroCore/Request/recordAppEvent(_:subject:detail:)``, which takes
/// the actor, address and browser from the request; listed on the audit's app events page.
public struct AppEvent: Sendable, Equatable {
    /// Who did it: the signed-in user's name, or "" for nobody signed in.
    public var username: String
    /// What kind of event: `sample_updated`.
    public var kind: String
    /// What it is about: `sample S-17`.
    public var subject: String
    /// More words, for a person: `status received → tested`.
    public var detail: String
    /// When, in seconds since 1970.
    public var at: Int64
    /// The client's address, as the app sees it (behind a trusted proxy, the client's).
    public var address: String
    /// The browser in words (`Firefox 128 on Linux`).
    public var browser: String

    /// An event with every field given.
    public init(username: String, kind: String, subject: String, detail: String, at: Int64, address: String, browser: String) {
        self.username = username
        self.kind = kind
        self.subject = subject
        self.detail = detail
        self.at = at
        self.address = address
        self.browser = browser
    }
}
