import MicroCore

extension User {
    /// The most roles a user from outside the store is given, and the most bytes they take
    /// together: their session cookie holds them, and a cookie past the browsers' limit would
    /// be dropped, a sign-in "succeeding" without one.
    public static let maximumOutsideRoles = 32
    /// See ``maximumOutsideRoles``.
    public static let maximumOutsideRolesBytes = 1024

    /// The roles a provider's or a sign-in proxy's groups give: those that are role names,
    /// lowercased, sorted, without repeats, within ``maximumOutsideRoles`` and
    /// ``maximumOutsideRolesBytes``.
    public static func roles(fromGroups sent: [String]) -> [String] {
        let names = Set(sent.prefix(1024).map { $0.lowercased() }.filter { problem(withRole: $0) == nil }).sorted()
        var kept: [String] = []
        var bytes = 0
        for name in names {
            guard kept.count < maximumOutsideRoles, bytes + name.utf8.count + 1 <= maximumOutsideRolesBytes else { break }
            kept.append(name)
            bytes += name.utf8.count + 1
        }
        return kept
    }
}
