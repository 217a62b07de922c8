import Foundation
import MicroCore

extension App {
    /// Ends every session begun until now, everyone's: all are signed out.
    public func signOutEveryone() {
        let settings = settings
        settings.sessions.revocations.revokeAll(at: Int64(settings.clock().timeIntervalSince1970 * 1000))
    }
}
