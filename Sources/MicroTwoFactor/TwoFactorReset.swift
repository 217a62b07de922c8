import Foundation
import MicroAccounts
import MicroAuth
import MicroCore

/// Turns a user's second factor off from outside the app (a command an operator runs for a user
/// who lost their phone and their recovery codes, or after the data key was lost): their secret
/// and recovery codes are deleted, and the event is recorded in the account pages' activity.
public enum TwoFactorReset {
    /// Turns it off for `username` in `database` (the one the account pages keep their state
    /// in); whether it was on. `detail` says who did it, for the user's activity.
    public static func reset(_ username: String, in database: Database, detail: String = "reset") async throws -> Bool {
        try await database.migrate(DatabaseActivityLog.migrations + TwoFactorStore.migrations)
        let name = Username.key(username)
        guard try await TwoFactorStore(database).disable(name) else { return false }
        try await DatabaseActivityLog(database).record(
            ActivityEvent(
                username: name, event: ActivityEvent.Kind.twoFactorDisabled, at: Int64(Date().timeIntervalSince1970), address: "",
                browser: "command line", detail: detail))
        return true
    }
}
