import MicroAuth
import MicroCore

/// An event as the activity and audit pages answer it in JSON (the audit names the user).
struct EventJson: Encodable {
    var user: String?
    var event: String
    var at: String
    var address: String
    var browser: String
    var detail: String
    /// When the account the event was of ended, for an earlier account of the name.
    var accountEndedAt: String?

    init(_ event: ActivityEvent, withUser: Bool) {
        user = withUser ? event.username : nil
        self.event = event.event
        at = AccountTime.iso(event.at)
        address = event.address
        browser = event.browser
        detail = event.detail
        accountEndedAt = event.accountEndedAt.map(AccountTime.iso)
    }

    private enum CodingKeys: String, CodingKey { case user, event, at, address, browser, detail, accountEndedAt }

    func encode(to encoder: any Encoder) throws {
        var container = encoder.container(keyedBy: CodingKeys.self)
        if let user { try container.encode(user, forKey: .user) }
        try container.encode(event, forKey: .event)
        try container.encode(at, forKey: .at)
        try container.encode(address, forKey: .address)
        try container.encode(browser, forKey: .browser)
        try container.encode(detail, forKey: .detail)
        if let accountEndedAt { try container.encode(accountEndedAt, forKey: .accountEndedAt) }
    }
}
