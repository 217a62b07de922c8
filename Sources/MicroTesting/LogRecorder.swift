import Logging
import Synchronization

/// Keeps what is logged through its ``logger``, for tests that check a message was written:
/// give the logger to the app (`App(settings:logger:)`) or to a store.
///
/// ```swift
/// let log = LogRecorder()
/// let app = App(settings: settings, logger: log.logger)
/// // ...
/// #expect(log.messages(at: .warning) == ["..."])
/// ```
public final class LogRecorder: Sendable {
    private let entries = Mutex<[(level: Logger.Level, message: String, metadata: Logger.Metadata)]>([])

    /// An empty recorder.
    public init() {}

    /// A logger whose messages of every level this recorder keeps.
    public var logger: Logger {
        Logger(label: "micro.test.recorder") { _ in Handler(recorder: self) }
    }

    /// The messages logged at `level`, in order.
    public func messages(at level: Logger.Level) -> [String] {
        entries.withLock { $0.filter { $0.level == level }.map(\.message) }
    }

    /// The lines logged at `level`, in order, as a text handler writes them: the message, then
    /// each metadata value as `key=value`, by key (the logger's own and the call's).
    public func lines(at level: Logger.Level) -> [String] {
        entries.withLock { entries in
            entries.filter { $0.level == level }.map { entry in
                ([entry.message] + entry.metadata.sorted { $0.key < $1.key }.map { "\($0.key)=\($0.value)" }).joined(separator: " ")
            }
        }
    }

    private struct Handler: LogHandler {
        let recorder: LogRecorder
        var metadata: Logger.Metadata = [:]
        var logLevel: Logger.Level = .trace

        subscript(metadataKey key: String) -> Logger.Metadata.Value? {
            get { metadata[key] }
            set { metadata[key] = newValue }
        }

        func log(event: LogEvent) {
            let merged = metadata.merging(event.metadata ?? [:]) { $1 }
            recorder.entries.withLock { $0.append((event.level, event.message.description, merged)) }
        }
    }
}
