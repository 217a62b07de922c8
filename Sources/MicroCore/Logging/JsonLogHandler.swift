import Logging

/// Writes each log event as one line of JSON to standard error, for a log collector or `jq`:
///
/// ```json
/// {"time":"2026-11-27T15:09:03.125Z","level":"info","label":"micro","source":"MicroAccounts","message":"account event","event":"signed_in","request_id":"5f3a9c-1b","user":"ann"}
/// ```
///
/// `time` is UTC with milliseconds; `error` is added when the event carries one. The metadata
/// (the handler's, the provider's, then the event's) follows as fields of their own, sorted by
/// name, so that `jq 'select(.event == "signed_in")'` reads them; a metadata key that is one of
/// the fields above is written as `meta_` and the key. Lists and dictionaries stay JSON arrays
/// and objects, other values are strings. Every string is JSON-escaped, so a value holding a
/// line break or a quote cannot end the line or the object.
///
/// The app uses it when ``Settings/logFormat`` is ``LogFormat/json`` (`MICRO_LOG_FORMAT=json`);
/// elsewhere, `LoggingSystem.bootstrap { JsonLogHandler(label: $0) }` makes it every logger's handler.
public struct JsonLogHandler: LogHandler {
    public var logLevel: Logger.Level = .info
    public var metadata: Logger.Metadata = [:]
    public var metadataProvider: Logger.MetadataProvider?
    private let label: String
    private let write: @Sendable ([UInt8]) -> Void

    /// A handler for the logger `label`, writing to standard error.
    public init(label: String, metadataProvider: Logger.MetadataProvider? = nil) {
        self.init(label: label, metadataProvider: metadataProvider, write: LineWriter.standardError.write)
    }

    /// A handler writing each line (its newline included) through `write`.
    package init(label: String, metadataProvider: Logger.MetadataProvider? = nil, write: @escaping @Sendable ([UInt8]) -> Void) {
        self.label = label
        self.metadataProvider = metadataProvider
        self.write = write
    }

    public subscript(metadataKey key: String) -> Logger.Metadata.Value? {
        get { metadata[key] }
        set { metadata[key] = newValue }
    }

    private static let fields: Set<String> = ["time", "level", "label", "source", "message", "error"]

    public func log(event: LogEvent) {
        var line: [UInt8] = []
        line.reserveCapacity(256)
        line.append(contentsOf: "{\"time\":\"".utf8)
        LogTime.appendNow(to: &line)
        line.append(contentsOf: "\",\"level\":\"".utf8)
        line.append(contentsOf: event.level.rawValue.utf8)
        line.append(UInt8(ascii: "\""))
        Self.append(field: "label", label, to: &line)
        Self.append(field: "source", event.source, to: &line)
        Self.append(field: "message", event.message.description, to: &line)
        if let error = event.error { Self.append(field: "error", "\(error)", to: &line) }

        var merged = metadata
        if let provided = metadataProvider?.get() { merged.merge(provided) { $1 } }
        if let own = event.metadata { merged.merge(own) { $1 } }
        for (key, value) in merged.sorted(by: { $0.key < $1.key }) {
            line.append(UInt8(ascii: ","))
            Self.appendString(Self.fields.contains(key) ? "meta_" + key : key, to: &line)
            line.append(UInt8(ascii: ":"))
            Self.append(value, to: &line)
        }
        line.append(contentsOf: "}\n".utf8)
        write(line)
    }

    private static func append(field: String, _ value: String, to line: inout [UInt8]) {
        line.append(contentsOf: ",\"".utf8)
        line.append(contentsOf: field.utf8)
        line.append(contentsOf: "\":".utf8)
        appendString(value, to: &line)
    }

    private static func appendString(_ text: String, to line: inout [UInt8]) {
        line.append(UInt8(ascii: "\""))
        JsonText.append(text, to: &line)
        line.append(UInt8(ascii: "\""))
    }

    private static func append(_ value: Logger.Metadata.Value, to line: inout [UInt8]) {
        switch value {
        case .string(let text): appendString(text, to: &line)
        case .stringConvertible(let convertible):
            // Whole numbers and finite doubles are JSON numbers, which a collector compares
            // and sums (a status, a duration); anything else is its description, a string.
            if convertible is any BinaryInteger || (convertible as? Double)?.isFinite == true {
                line.append(contentsOf: convertible.description.utf8)
            } else {
                appendString(convertible.description, to: &line)
            }
        case .array(let values):
            line.append(UInt8(ascii: "["))
            for (index, element) in values.enumerated() {
                if index > 0 { line.append(UInt8(ascii: ",")) }
                append(element, to: &line)
            }
            line.append(UInt8(ascii: "]"))
        case .dictionary(let values):
            line.append(UInt8(ascii: "{"))
            for (index, (key, element)) in values.sorted(by: { $0.key < $1.key }).enumerated() {
                if index > 0 { line.append(UInt8(ascii: ",")) }
                appendString(key, to: &line)
                line.append(UInt8(ascii: ":"))
                append(element, to: &line)
            }
            line.append(UInt8(ascii: "}"))
        }
    }
}
