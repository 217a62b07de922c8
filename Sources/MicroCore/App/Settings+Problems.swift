import Foundation

extension Settings {
    /// The mistakes in these settings, each in words that say what to change.
    func problems() -> [String] {
        var problems: [String] = []
        for (name, value) in [
            ("headerTimeout", headerTimeout), ("bodyTimeout", bodyTimeout), ("connectionIdleTimeout", connectionIdleTimeout),
            ("sendTimeout", sendTimeout), ("shutdownTimeout", shutdownTimeout),
        ]
        where !(value > .zero && value <= .seconds(86_400)) {
            problems.append("settings.\(name) is \(value); it must be more than 0 and at most 24 hours.")
        }
        if maxConnections < 1 {
            problems.append("settings.maxConnections is \(maxConnections); it must be at least 1.")
        } else if let files = Self.openFilesLimit, maxConnections > max(1, files - Self.reservedFiles) {
            problems.append(
                "settings.maxConnections is \(maxConnections), but this process may open only \(files) files (ulimit -n) and each connection takes one: raise the limit (ulimit -n, or LimitNOFILE= in a systemd unit) or lower maxConnections (MICRO_MAX_CONNECTIONS) to \(max(1, (files - Self.reservedFiles) / 2)) or less.")
        }
        if let views, !Self.isDirectory(views) {
            problems.append("settings.views: the views folder '\(views)' does not exist (relative paths start at \(FileManager.default.currentDirectoryPath)); create it, or set settings.views = nil for an app without templates.")
        }
        if let redirect = tls?.redirectPort, !(0...65535).contains(redirect) || (redirect != 0 && redirect == port) {
            problems.append("settings.tls.redirectPort is \(redirect); it must be a port from 0 (a free one) to 65535 other than settings.port.")
        }
        if bodyLimit <= 0 { problems.append("settings.bodyLimit is \(bodyLimit); it must be positive.") }
        if formFieldLimit < 1 { problems.append("settings.formFieldLimit is \(formFieldLimit); it must be at least 1.") }
        if formMemoryLimit < 1 { problems.append("settings.formMemoryLimit is \(formMemoryLimit); it must be positive.") }
        if headerLimit < 1024 { problems.append("settings.headerLimit is \(headerLimit); it must be at least 1024 bytes.") }
        let token = sessions.cookieName.utf8
        if token.isEmpty || token.contains(where: { $0 <= 0x20 || $0 >= 0x7F || Array("()<>@,;:\\\"/[]?={}".utf8).contains($0) }) {
            problems.append("settings.sessions.cookieName '\(sessions.cookieName)' is not a valid cookie name.")
        }
        if sessions.idleSeconds <= 0 || sessions.lifetimeSeconds <= 0 {
            problems.append("settings.sessions.idleTimeout and absoluteLifetime must be a second or more.")
        }
        if !basePath.isEmpty, let problem = Self.basePathProblem(basePath) {
            problems.append("settings.basePath: \(problem)")
        }
        for entry in trustedProxies where AddressRange(entry) == nil {
            problems.append("settings.trustedProxies has '\(entry)', which is not an IP address or a range such as 10.0.0.0/8.")
        }
        for entry in forwardedPrefixes where PathScope.problem(with: entry) != nil {
            problems.append("settings.forwardedPrefixes has '\(entry)'; a prefix starts with a slash and holds only literal segments: /tools, say.")
        }
        for entry in allowedHosts where Self.hostProblem(entry) != nil {
            problems.append("settings.allowedHosts has '\(entry)'; \(Self.hostProblem(entry)!)")
        }
        if let publicUrl {
            do {
                let url = try PublicUrl(publicUrl)
                if !url.path.isEmpty, !basePath.isEmpty, url.path != basePath {
                    problems.append("settings.publicUrl's path \(url.path) differs from settings.basePath \(basePath); give one of them.")
                }
            } catch {
                problems.append("settings.publicUrl: \(error.message)")
            }
        }
        for entry in trustedOrigins where CsrfProtection.origin(entry) == nil {
            problems.append("settings.trustedOrigins has '\(entry)'; an origin is http:// or https://, a host and an optional port from 1 to 65535, nothing more: https://tools.example.com, say.")
        }
        for (name, value) in [("staticCacheControl", staticCacheControl)] where value.utf8.contains(where: { $0 < 0x20 }) {
            problems.append("settings.\(name) holds a control character.")
        }
        return problems
    }

    /// What is wrong with `path` as a base path (it is checked as a group's prefix is).
    static func basePathProblem(_ path: String) -> String? {
        PathScope.problem(with: path).map { $0.replacingOccurrences(of: "a group's prefix", with: "the base path") }
    }

    private static func isDirectory(_ path: String) -> Bool {
        var isDirectory: ObjCBool = false
        return FileManager.default.fileExists(atPath: path, isDirectory: &isDirectory) && isDirectory.boolValue
    }

    /// Why `entry` cannot be an allowed host; nil when it can: a name of letters, digits, `-`
    /// and dots, with an optional leading dot, and no port.
    static func hostProblem(_ entry: String) -> String? {
        let allowed = Set("abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789-.".utf8)
        let name = entry.hasPrefix(".") ? entry.dropFirst() : Substring(entry)
        guard !name.isEmpty, name.utf8.allSatisfy(allowed.contains), !name.hasPrefix("."), !name.contains("..") else {
            return "expected a host name such as tools.example.com, or .example.com for a domain and its subdomains (no scheme, port or path)."
        }
        return nil
    }
}
