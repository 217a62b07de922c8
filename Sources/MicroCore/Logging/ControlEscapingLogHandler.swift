import Logging

/// Wraps the app's log handler so that no value reaches a log line with its control
/// characters: a client's text (a path, a provider's `error_description`, a header) may hold
/// CR and LF, which would write whole fake lines (`signed_in user=root`), or ESC, which
/// drives the terminal a log is read in. Each is written as an escape (`\n`, `\u{1B}`), in
/// the message and in every metadata value, whatever handler the app bootstrapped.
public struct ControlEscapingLogHandler: LogHandler {
    /// The handler that writes the escaped lines.
    public var wrapped: any LogHandler

    /// Escapes what goes to `wrapped`.
    public init(wrapping wrapped: any LogHandler) {
        self.wrapped = wrapped
    }

    public var logLevel: Logger.Level {
        get { wrapped.logLevel }
        set { wrapped.logLevel = newValue }
    }

    public var metadata: Logger.Metadata {
        get { wrapped.metadata }
        set { wrapped.metadata = newValue.mapValues(Self.escape) }
    }

    public subscript(metadataKey key: String) -> Logger.Metadata.Value? {
        get { wrapped[metadataKey: key] }
        set { wrapped[metadataKey: key] = newValue.map(Self.escape) }
    }

    public var metadataProvider: Logger.MetadataProvider? {
        get { wrapped.metadataProvider }
        set { wrapped.metadataProvider = newValue }
    }

    public func log(event: LogEvent) {
        var event = event
        event.message = Logger.Message(stringLiteral: Self.escape(event.message.description))
        event.metadata = event.metadata?.mapValues(Self.escape)
        wrapped.log(event: event)
    }

    /// `text` with each control character, invisible formatting character (bidirectional
    /// overrides, zero-width marks), line or paragraph separator, and private-use, surrogate or
    /// unassigned code point written as an escape; the text itself when it has none (most
    /// lines, which are ASCII and need one pass over their bytes).
    public static func escape(_ text: String) -> String {
        guard text.utf8.contains(where: { $0 < 0x20 || $0 >= 0x7F }) else { return text }
        guard text.unicodeScalars.contains(where: needsEscape) else { return text }
        var escaped = ""
        escaped.reserveCapacity(text.utf8.count + 8)
        for scalar in text.unicodeScalars {
            switch scalar {
            case "\n": escaped += "\\n"
            case "\r": escaped += "\\r"
            case "\t": escaped += "\\t"
            default:
                if needsEscape(scalar) {
                    escaped += "\\u{" + String(scalar.value, radix: 16, uppercase: true) + "}"
                } else {
                    escaped.unicodeScalars.append(scalar)
                }
            }
        }
        return escaped
    }

    private static func needsEscape(_ scalar: Unicode.Scalar) -> Bool {
        if scalar.value < 0x20 || scalar.value == 0x7F { return true }
        if scalar.isASCII { return false }
        switch scalar.properties.generalCategory {
        case .control, .format, .lineSeparator, .paragraphSeparator, .privateUse, .surrogate, .unassigned: return true
        default: return false
        }
    }

    private static func escape(_ value: Logger.Metadata.Value) -> Logger.Metadata.Value {
        switch value {
        case .string(let text): return .string(escape(text))
        case .stringConvertible(let convertible): return .string(escape(convertible.description))
        case .array(let values): return .array(values.map(escape))
        case .dictionary(let values): return .dictionary(values.mapValues(escape))
        }
    }
}
