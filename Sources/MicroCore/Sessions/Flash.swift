/// Messages for the next request (sinatra-flash): set one before a redirect, and the page after
/// shows it, once. ``now`` holds messages for this request only.
///
/// ```swift
/// request.flash["notice"] = "Saved."
/// try request.redirect(to: "/")
/// ```
public final class Flash {
    static let sessionKey = "_flash"

    private let session: Session
    /// Messages set by the previous request, readable in this one.
    private let incoming: [String: String]
    /// Messages for the next request.
    private var outgoing: [String: String] = [:]

    /// Messages for this request only (a page rendered without a redirect).
    public let now = FlashNow()

    init(session: Session) {
        self.session = session
        incoming = session.get(Self.sessionKey, as: [String: String].self) ?? [:]
        if !incoming.isEmpty { session.remove(Self.sessionKey) }
    }

    /// The message under `key`: set now, else for the next request, else from the previous one.
    /// Setting one keeps it for the next request.
    public subscript(key: String) -> String? {
        get { now.messages[key] ?? outgoing[key] ?? incoming[key] }
        set {
            outgoing[key] = newValue
            if outgoing.isEmpty { session.remove(Self.sessionKey) } else { try? session.set(Self.sessionKey, outgoing) }
        }
    }

    /// What a page shows: the previous request's messages and this request's `now` ones.
    public var visible: [String: String] {
        incoming.merging(now.messages) { _, current in current }
    }
}
