import Foundation
import MicroAuth
import MicroCore

/// Times on the account pages: ISO 8601 for `<time datetime>` and JSON, and words for people.
public enum AccountTime {
    /// `2026-11-25T15:20:00Z`, for `<time datetime>` and JSON.
    public static func iso(_ seconds: Int64) -> String {
        Date(timeIntervalSince1970: TimeInterval(seconds)).formatted(.iso8601)
    }

    /// `2026-11-25 15:20 UTC`.
    public static func shown(_ seconds: Int64) -> String {
        let iso = iso(seconds)
        return String(iso.prefix(10)) + " " + String(iso.dropFirst(11).prefix(5)) + " UTC"
    }
}
