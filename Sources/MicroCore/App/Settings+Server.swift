extension Settings {
    /// The part of the settings the server enforces.
    var server: ServerSettings {
        ServerSettings(
            host: host, port: port, bodyLimit: bodyLimit, headerLimit: headerLimit, headerTimeout: headerTimeout,
            bodyTimeout: bodyTimeout, connectionIdleTimeout: connectionIdleTimeout, sendTimeout: sendTimeout,
            shutdownTimeout: shutdownTimeout, maxConnections: maxConnections, accessLog: accessLog)
    }
}
