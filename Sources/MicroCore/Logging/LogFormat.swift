/// How the app writes its log lines (``Settings/logFormat``, `MICRO_LOG_FORMAT`).
public enum LogFormat: String, Sendable, CaseIterable {
    /// swift-log's text lines: time, level, label, metadata, `[module]` and message.
    case text
    /// One JSON object per line (``JsonLogHandler``), for a log collector or `jq`.
    case json
}
