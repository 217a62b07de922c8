import MicroAuth
import MicroCore

/// A session as the sessions page answers it in JSON.
struct SessionJson: Encodable {
    var id: String
    var browser: String
    var address: String
    var signedInAt: String
    var lastSeenAt: String
    var current: Bool
}
