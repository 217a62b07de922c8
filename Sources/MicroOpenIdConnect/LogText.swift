#if OpenIdConnect
import MicroCore

/// A value a client or the provider sent, made safe for one log line or an event's detail:
/// cut to a bound, then escaped as every log line of the app is
/// (``ControlEscapingLogHandler/escape(_:)``), so that an event stored in the audit reads as
/// the log does.
enum LogText {
    static func escape(_ text: some StringProtocol, limit: Int = 200) -> String {
        var scalars = text.unicodeScalars.prefix(limit + 1)
        let cut = scalars.count > limit
        if cut { scalars = scalars.prefix(limit) }
        return ControlEscapingLogHandler.escape(String(String.UnicodeScalarView(scalars))) + (cut ? "…" : "")
    }
}
#endif
