import Foundation
import Micro

/// An account event a command made (a link removed), kept in the audit as the page's are, with
/// `command line` where a page has the browser.
enum CommandEvent {
    /// Records `event`; a log that cannot be written is said on standard error, and the
    /// command's change stands (it is made already).
    static func record(_ event: String, of username: String, detail: String, in database: Database) async {
        do {
            try await database.migrate(DatabaseActivityLog.migrations)
            try await DatabaseActivityLog(database).record(ActivityEvent(
                username: Username.key(username), event: event, at: Int64(Date().timeIntervalSince1970), address: "", browser: "command line",
                detail: ControlEscapingLogHandler.escape(detail)))
        } catch {
            FileHandle.standardError.write(Data("Warning: the audit could not record \(event) of '\(username)': \(error)\n".utf8))
        }
    }
}
