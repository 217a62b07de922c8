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
    private let entries = Mutex<[(level: Logger.Level, message: String)]>([])

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

    private struct Handler: LogHandler {
        let recorder: LogRecorder
        var metadata: Logger.Metadata = [:]
        var logLevel: Logger.Level = .trace

        subscript(metadataKey key: String) -> Logger.Metadata.Value? {
            get { metadata[key] }
            set { metadata[key] = newValue }
        }

        func log(event: LogEvent) {
            recorder.entries.withLock { $0.append((event.level, event.message.description)) }
        }
    }
}
