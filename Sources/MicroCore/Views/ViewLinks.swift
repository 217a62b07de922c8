import Foundation

/// Symbolic links in the views folder, under the rule static files follow: a template that is
/// a link is read only when its target lies inside the folder; a link out of it is refused, so
/// that no link can make a page of a file elsewhere. A folder in it that is a link is not
/// entered. The views folder itself may be a link (a deployment's shared folder): it is the
/// app's own setting, and its target is the folder. Each refusal is said in words naming the
/// link, since without them a template behind a link reads as one that does not exist.
enum ViewLinks {
    /// Whether the template file `file` may be read: not a link, or a link whose target lies
    /// inside `realFolder` (the views folder, its links resolved).
    static func allows(_ file: String, realFolder: String) -> Bool {
        guard linkTarget(file) != nil else { return true }
        guard let resolved = realPath(file) else { return false }
        return resolved.hasPrefix(realFolder + "/")
    }

    /// `path` with every link, `.` and `..` resolved; nil when it leads nowhere.
    static func realPath(_ path: String) -> String? {
        guard let resolved = realpath(path, nil) else { return nil }
        defer { free(resolved) }
        return String(cString: resolved)
    }

    /// Why the template `name` of `folder` was not found, when a link is in its way: a folder
    /// on the way, or the file itself; nil when there is none.
    static func refusal(of name: String, in folder: String) -> String? {
        var path = folder
        let parts = name.split(separator: "/").map(String.init)
        for (index, part) in parts.enumerated() {
            let isFile = index == parts.count - 1
            path += "/" + part + (isFile ? ".mustache" : "")
            guard let target = linkTarget(path) else { continue }
            if isFile {
                return "The template \(path) is a link to \(target), outside \(folder)/: a template that is a link is read only when it leads to a file inside the views folder."
            }
            return "The template \(folder)/\(name).mustache is behind \(path), a link (to \(target)): Micro enters no folder in \(folder)/ that is a link; put the templates in a folder of the views folder itself."
        }
        return nil
    }

    /// The target of the link at `path`, as it is written; nil when `path` is not a link.
    static func linkTarget(_ path: String) -> String? {
        guard let type = try? FileManager.default.attributesOfItem(atPath: path)[.type] as? FileAttributeType,
            type == .typeSymbolicLink
        else { return nil }
        return (try? FileManager.default.destinationOfSymbolicLink(atPath: path)) ?? "somewhere unreadable"
    }
}
