import MicroAuth
import MicroCore

/// An app event as the audit's JSON shows it.
struct AppEventJson: Encodable {
    var user: String
    var kind: String
    var subject: String
    var detail: String
    var at: String
    var address: String
    var browser: String

    init(_ event: AppEvent) {
        user = event.username
        kind = event.kind
        subject = event.subject
        detail = event.detail
        at = AccountTime.iso(event.at)
        address = event.address
        browser = event.browser
    }
}
