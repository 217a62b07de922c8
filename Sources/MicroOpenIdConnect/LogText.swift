#if OpenIdConnect
/// A value a client or the provider sent, made safe for one log line: cut to a bound, and
/// every control (CR, LF, ESC...), invisible formatting (bidirectional overrides) or line
/// separator written as `\u{..}`, so that nobody writes a line of their own or a terminal
/// escape into the log. A backslash is written twice, so that no escape can be forged either.
enum LogText {
    static func escape(_ text: some StringProtocol, limit: Int = 200) -> String {
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
                if scalar == "\\" { out += "\\\\" } else { out.unicodeScalars.append(scalar) }
            }
        }
        return out
    }
}
#endif
