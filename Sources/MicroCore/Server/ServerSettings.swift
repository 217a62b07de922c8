/// What the server needs of the app's settings: where to listen, the limits on what a client
/// sends, the connection's timeouts, and whether to log.
struct ServerSettings: Sendable {
    var host: String
    var port: Int
    var bodyLimit: Int
    var headerLimit: Int
    var headerTimeout: Duration
    var bodyTimeout: Duration
    var connectionIdleTimeout: Duration
    var sendTimeout: Duration
    var shutdownTimeout: Duration
    var maxConnections: Int
    var accessLog: Bool
}
