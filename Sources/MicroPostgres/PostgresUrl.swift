#if Postgres
import Foundation
import MicroCore
import NIOSSL
import PostgresNIO

/// Where the database is: `postgres://user:password@host:port/database`, as libpq writes it
/// (`postgresql://` too; the user and password percent-encoded; `?sslmode=disable`, `prefer`,
/// the default, or `require`).
public struct PostgresUrl: Sendable, CustomStringConvertible {
    public var host: String
    public var port: Int
    public var username: String
    public var password: String?
    public var database: String?
    /// libpq's `sslmode`: `disable`, `prefer` or `require`.
    public var sslMode: String

    /// Reads `text`; a ``/MicroCore/ConfigurationError`` says what is wrong with it (without the password).
    public init(_ text: String) throws(ConfigurationError) {
        guard let components = URLComponents(string: text), let scheme = components.scheme?.lowercased() else {
            throw ConfigurationError("not a URL; expected postgres://user:password@host:port/database")
        }
        guard scheme == "postgres" || scheme == "postgresql" else {
            throw ConfigurationError("the scheme is \(scheme)://; expected postgres://user:password@host:port/database")
        }
        guard let host = components.host, !host.isEmpty else {
            throw ConfigurationError("no host; expected postgres://user:password@host:port/database")
        }
        guard let user = components.user?.removingPercentEncoding, !user.isEmpty else {
            throw ConfigurationError("no user name; expected postgres://user:password@host:port/database")
        }
        if let port = components.port, !(1...65535).contains(port) {
            throw ConfigurationError("the port \(port) is not between 1 and 65535")
        }
        self.host = host
        port = components.port ?? 5432
        username = user
        password = components.password?.removingPercentEncoding
        let path = components.path.hasPrefix("/") ? String(components.path.dropFirst()) : components.path
        database = path.isEmpty ? nil : path.removingPercentEncoding
        sslMode = components.queryItems?.first { $0.name == "sslmode" }?.value ?? "prefer"
        guard ["disable", "prefer", "require"].contains(sslMode) else {
            throw ConfigurationError("sslmode=\(sslMode) is not one of disable, prefer, require")
        }
    }

    /// `postgres://user@host:port/database`: the URL without its password, for messages.
    public var description: String {
        "postgres://\(username)@\(host):\(port)/\(database ?? username)"
    }

    /// The pool's configuration; every statement is bounded by `statementTimeout` on the server.
    func clientConfiguration(connectTimeout: Duration, statementTimeout: Duration) -> PostgresClient.Configuration {
        let tls: PostgresClient.Configuration.TLS
        switch sslMode {
        case "disable": tls = .disable
        case "require": tls = .require(.makeClientConfiguration())
        default: tls = .prefer(.makeClientConfiguration())
        }
        var configuration = PostgresClient.Configuration(
            host: host, port: port, username: username, password: password, database: database, tls: tls)
        configuration.options.connectTimeout = connectTimeout
        configuration.options.additionalStartupParameters = [("statement_timeout", "\(Self.milliseconds(statementTimeout))")]
        configuration.options.maximumConnections = 10
        return configuration
    }

    /// The configuration of the one connection that listens for changes.
    func connectionConfiguration(connectTimeout: Duration, statementTimeout: Duration) throws -> PostgresConnection.Configuration {
        let tls: PostgresConnection.Configuration.TLS
        switch sslMode {
        case "disable": tls = .disable
        case "require": tls = .require(try NIOSSLContext(configuration: .makeClientConfiguration()))
        default: tls = .prefer(try NIOSSLContext(configuration: .makeClientConfiguration()))
        }
        var configuration = PostgresConnection.Configuration(
            host: host, port: port, username: username, password: password, database: database, tls: tls)
        configuration.options.connectTimeout = .milliseconds(Self.milliseconds(connectTimeout))
        configuration.options.additionalStartupParameters = [("statement_timeout", "\(Self.milliseconds(statementTimeout))")]
        return configuration
    }

    static func milliseconds(_ duration: Duration) -> Int64 {
        duration.components.seconds * 1000 + duration.components.attoseconds / 1_000_000_000_000_000
    }
}
#endif
