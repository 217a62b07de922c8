/// The paths a route group covers: its prefix itself and everything below it (`/admin` and
/// `/admin/users`, never `/administrator`). A group's filters and error handlers apply there.
struct PathScope: Sendable, Equatable {
    /// The group's prefix: a slash, then literal segments, no trailing slash.
    let prefix: String

    func contains(_ path: String) -> Bool {
        guard path.utf8.starts(with: prefix.utf8) else { return false }
        let rest = path.utf8.dropFirst(prefix.utf8.count)
        return rest.isEmpty || rest.first == UInt8(ascii: "/")
    }

    /// Why `prefix` cannot be a group's prefix; nil when it can.
    static func problem(with prefix: String) -> String? {
        guard prefix.first == "/", prefix.count > 1, prefix.last != "/" else {
            return "a group's prefix starts with a slash and does not end with one: '/admin', say, not '\(prefix)'."
        }
        let allowed = Set("abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789-._~/".utf8)
        let segments = prefix.split(separator: "/", omittingEmptySubsequences: false).dropFirst()
        guard prefix.utf8.allSatisfy(allowed.contains), !segments.contains(where: { $0.isEmpty || $0 == "." || $0 == ".." }) else {
            return "a group's prefix '\(prefix)' holds only literal segments (letters, digits, - . _ ~), no parameters or wildcards."
        }
        return nil
    }
}
