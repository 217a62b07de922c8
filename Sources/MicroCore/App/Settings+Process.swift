extension Settings {
    /// The defaults, with `MICRO_ENV`, `HOST`, `PORT`, `MICRO_BASE_PATH`,
    /// `MICRO_MAX_CONNECTIONS`, `MICRO_TRUSTED_PROXIES`, `MICRO_FORWARDED_PREFIXES`,
    /// `MICRO_ALLOWED_HOSTS` (comma-separated), `MICRO_PUBLIC_URL`, `MICRO_LOG_FORMAT`,
    /// `MICRO_TLS_CERT`, `MICRO_TLS_KEY`, `MICRO_HTTP_REDIRECT_PORT` and
    /// `MICRO_SESSION_SECRET` applied, and the variables kept in ``variables`` for the plugins'
    /// own. A bad value throws an error naming its variable.
    public static func fromProcess(_ variables: [String: String]) throws(ConfigurationError) -> Settings {
        var settings = Settings()
        settings.environment = try Environment.fromProcess(variables)
        if let host = variables["HOST"], !host.isEmpty { settings.host = host }
        if let basePath = variables["MICRO_BASE_PATH"], !basePath.isEmpty {
            if let problem = basePathProblem(basePath) { throw ConfigurationError("MICRO_BASE_PATH: \(problem)") }
            settings.basePath = basePath
        }
        if let raw = variables["PORT"], !raw.isEmpty {
            guard let port = Int(raw), (0...65535).contains(port) else {
                throw ConfigurationError("PORT is '\(raw)'; expected a number from 0 to 65535.")
            }
            settings.port = port
        }
        if let raw = variables["MICRO_MAX_CONNECTIONS"], !raw.isEmpty {
            guard let limit = Int(raw), limit >= 1 else {
                throw ConfigurationError("MICRO_MAX_CONNECTIONS is '\(raw)'; expected a whole number of 1 or more.")
            }
            settings.maxConnections = limit
        }
        if let raw = variables["MICRO_TRUSTED_PROXIES"], !raw.isEmpty {
            let entries = Self.list(raw)
            if let bad = entries.first(where: { AddressRange($0) == nil }) {
                throw ConfigurationError("MICRO_TRUSTED_PROXIES has '\(bad)'; expected IP addresses or ranges separated by commas, such as 127.0.0.1,10.0.0.0/8.")
            }
            settings.trustedProxies = entries
        }
        if let raw = variables["MICRO_FORWARDED_PREFIXES"], !raw.isEmpty {
            let entries = Self.list(raw)
            if let bad = entries.first(where: { PathScope.problem(with: $0) != nil }) {
                throw ConfigurationError("MICRO_FORWARDED_PREFIXES has '\(bad)'; expected paths separated by commas, such as /tools,/admin-tools.")
            }
            settings.forwardedPrefixes = entries
        }
        if let raw = variables["MICRO_ALLOWED_HOSTS"], !raw.isEmpty {
            let entries = Self.list(raw)
            if let bad = entries.first(where: { hostProblem($0) != nil }) {
                throw ConfigurationError("MICRO_ALLOWED_HOSTS has '\(bad)'; \(hostProblem(bad)!)")
            }
            settings.allowedHosts = entries
        }
        if let raw = variables["MICRO_PUBLIC_URL"], !raw.isEmpty {
            let url: PublicUrl
            do { url = try PublicUrl(raw) } catch { throw ConfigurationError("MICRO_PUBLIC_URL: \(error.message)") }
            if !url.path.isEmpty, !settings.basePath.isEmpty, url.path != settings.basePath {
                throw ConfigurationError("MICRO_PUBLIC_URL's path \(url.path) differs from MICRO_BASE_PATH \(settings.basePath); give one of them.")
            }
            settings.publicUrl = raw
        }
        if let raw = variables["MICRO_LOG_FORMAT"], !raw.isEmpty {
            guard let format = LogFormat(rawValue: raw) else {
                throw ConfigurationError("MICRO_LOG_FORMAT is '\(raw)'; expected text or json.")
            }
            settings.logFormat = format
        }
        settings.tls = try tls(variables)
        if let secret = variables["MICRO_SESSION_SECRET"], !secret.isEmpty { settings.sessions.secret = secret }
        // Micro's own only: the rest of the environment (other services' passwords, a cloud's
        // keys) has no business in settings that any route can reach.
        settings.variables = variables.filter { $0.key.hasPrefix("MICRO_") }
        return settings
    }

    /// `MICRO_TLS_CERT` and `MICRO_TLS_KEY`, both or neither, and `MICRO_HTTP_REDIRECT_PORT`
    /// and `MICRO_HSTS_MAX_AGE` with them. (Whether the files can be used is checked when the app starts.)
    private static func tls(_ variables: [String: String]) throws(ConfigurationError) -> TlsSettings? {
        let certificate = variables["MICRO_TLS_CERT"].flatMap { $0.isEmpty ? nil : $0 }
        let key = variables["MICRO_TLS_KEY"].flatMap { $0.isEmpty ? nil : $0 }
        let redirect = variables["MICRO_HTTP_REDIRECT_PORT"].flatMap { $0.isEmpty ? nil : $0 }
        guard let certificate, let key else {
            if certificate != nil || key != nil {
                throw ConfigurationError("\(certificate == nil ? "MICRO_TLS_KEY" : "MICRO_TLS_CERT") is set without \(certificate == nil ? "MICRO_TLS_CERT" : "MICRO_TLS_KEY"); HTTPS needs both the certificate file and its key file.")
            }
            if redirect != nil { throw ConfigurationError("MICRO_HTTP_REDIRECT_PORT is set without MICRO_TLS_CERT and MICRO_TLS_KEY; it redirects to HTTPS, which needs them.") }
            return nil
        }
        var settings = TlsSettings(certificateFile: certificate, keyFile: key)
        if let maxAge = variables["MICRO_HSTS_MAX_AGE"], !maxAge.isEmpty {
            guard let seconds = Int(maxAge), seconds >= 0, seconds <= 2 * TlsSettings.defaultStrictTransportSecurityMaxAge else {
                throw ConfigurationError("MICRO_HSTS_MAX_AGE is '\(maxAge)'; expected seconds from 0 (no Strict-Transport-Security) to \(2 * TlsSettings.defaultStrictTransportSecurityMaxAge).")
            }
            settings.strictTransportSecurityMaxAge = seconds
        }
        if let redirect {
            guard let port = Int(redirect), (1...65535).contains(port) else {
                throw ConfigurationError("MICRO_HTTP_REDIRECT_PORT is '\(redirect)'; expected a number from 1 to 65535.")
            }
            settings.redirectPort = port
        }
        return settings
    }

    /// The entries of a comma-separated variable, trimmed, without empty ones.
    private static func list(_ raw: String) -> [String] {
        raw.split(separator: ",").map { $0.trimmingSpaces() }.filter { !$0.isEmpty }
    }
}
