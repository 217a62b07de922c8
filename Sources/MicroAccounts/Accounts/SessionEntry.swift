import Foundation
import MicroAuth
import MicroCore

/// One signed-in session as the sessions page lists it.
public struct SessionEntry: Sendable, Equatable, Codable {
    /// An opaque id for the page and its forms: a digest of the session's identity, which
    /// opens nothing and cannot be turned back into it.
    public var id: String
    /// Whose session it is.
    public var username: String
    /// The browser and system, in words (``UserAgentSummary``).
    public var browser: String
    /// The whole `User-Agent` as sent, cut to 512 bytes.
    public var userAgent: String
    /// The client's address as the throttle counts it.
    public var address: String
    /// When it signed in (seconds since 1970).
    public var signedInAt: Int64
    /// When it was last seen; written at most once a minute, so it may lag that much.
    public var lastSeenAt: Int64

    /// An entry.
    public init(id: String, username: String, browser: String, userAgent: String, address: String, signedInAt: Int64, lastSeenAt: Int64) {
        self.id = id
        self.username = username
        self.browser = browser
        self.userAgent = userAgent
        self.address = address
        self.signedInAt = signedInAt
        self.lastSeenAt = lastSeenAt
    }
}
