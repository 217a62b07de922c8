#if OpenIdConnect
/// A value a client or the provider sent, made safe for one log line: cut to a bound, and
/// every control (CR, LF, ESC...), invisible formatting (bidirectional overrides) or line
/// separator written as `\u{..}`, so that nobody writes a line of their own or a terminal
/// escape into the log. A backslash is written twice, so that no escape can be forged either.
enum LogText {
    ///
    /// With `doublingBackslashes` false, for a line put together from values escaped already:
    /// their `\u{..}` stay as they are, and a control that came through some other way is
    /// still escaped.
    static func escape(_ text: some StringProtocol, limit: Int = 200, doublingBackslashes: Bool = true) -> String {
        var out = ""
        var count = 0
        for scalar in text.unicodeScalars {
            if count == limit {
                out += "…"
                break
            }
            count += 1
            switch scalar.properties.generalCategory {
            case .control, .format, .lineSeparator, .paragraphSeparator, .surrogate, .privateUse, .unassigned:
                out += "\\u{" + String(scalar.value, radix: 16) + "}"
            default:
                if scalar == "\\", doublingBackslashes { out += "\\\\" } else { out.unicodeScalars.append(scalar) }
            }
        }
        return out
    }
}
#endif
