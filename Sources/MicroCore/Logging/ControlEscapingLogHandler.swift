import Logging

/// Wraps the app's log handler so that no value reaches a log line with its control
/// characters: a client's text (a path, a provider's `error_description`, a header) may hold
/// CR and LF, which would write whole fake lines (`signed_in user=root`), or ESC, which
/// drives the terminal a log is read in. Each is written as an escape (`\n`, `\u{1B}`), in
/// the message and in every metadata value, whatever handler the app bootstrapped.
///
/// When `wrapped` is swift-log's text handler (`StreamLogHandler`, the text format), a
/// metadata value with a space, `=` or `"` is also quoted (``quote(_:)``): the text format
/// writes `key=value` pairs side by side, so a token named `ci user=root` would otherwise read
/// as a field of its own.
public struct ControlEscapingLogHandler: LogHandler {
    /// The handler that writes the escaped lines.
    public var wrapped: any LogHandler {
        didSet { quotesValues = wrapped is StreamLogHandler }
    }
    private var quotesValues: Bool

    /// Escapes what goes to `wrapped`.
    public init(wrapping wrapped: any LogHandler) {
        self.wrapped = wrapped
        quotesValues = wrapped is StreamLogHandler
    }

    public var logLevel: Logger.Level {
        get { wrapped.logLevel }
        set { wrapped.logLevel = newValue }
    }

    public var metadata: Logger.Metadata {
        get { wrapped.metadata }
        set { wrapped.metadata = newValue.mapValues(escape) }
    }

    public subscript(metadataKey key: String) -> Logger.Metadata.Value? {
        get { wrapped[metadataKey: key] }
        set { wrapped[metadataKey: key] = newValue.map(escape) }
    }

    public var metadataProvider: Logger.MetadataProvider? {
        get { wrapped.metadataProvider }
        set { wrapped.metadataProvider = newValue }
    }

    public func log(event: LogEvent) {
        var event = event
        event.message = Logger.Message(stringLiteral: Self.escape(event.message.description))
        event.metadata = event.metadata?.mapValues(escape)
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

    /// `text` in double quotes, with `\` and `"` escaped, when it is empty or holds a space,
    /// `=` or `"`; the text itself otherwise. Applied after ``escape(_:)``, so it sees no
    /// control characters.
    public static func quote(_ text: String) -> String {
        guard text.isEmpty || text.utf8.contains(where: { $0 == UInt8(ascii: " ") || $0 == UInt8(ascii: "=") || $0 == UInt8(ascii: "\"") })
        else { return text }
        var quoted = "\""
        for scalar in text.unicodeScalars {
            switch scalar {
            case "\\": quoted += "\\\\"
            case "\"": quoted += "\\\""
            default: quoted.unicodeScalars.append(scalar)
            }
        }
        return quoted + "\""
    }

    private func escape(_ value: Logger.Metadata.Value) -> Logger.Metadata.Value {
        switch value {
        case .string(let text): return .string(escapeValue(text))
        // A number has nothing to escape, and a JSON handler writes it as a number.
        case .stringConvertible(let convertible) where convertible is any BinaryInteger || convertible is Double: return value
        case .stringConvertible(let convertible): return .string(escapeValue(convertible.description))
        case .array(let values): return .array(values.map(escape))
        case .dictionary(let values): return .dictionary(values.mapValues(escape))
        }
    }

    private func escapeValue(_ text: String) -> String {
        let escaped = Self.escape(text)
        return quotesValues ? Self.quote(escaped) : escaped
    }
}
