#if canImport(Glibc)
import Glibc
#elseif canImport(Musl)
import Musl
#else
import Darwin
#endif

/// A regular file found on disk: its real path (symlinks followed), size and modification
/// time. Finding one reads metadata only (`stat`, `realpath`), never the content.
struct DiskFile {
    /// The real path.
    let path: String
    /// The size in bytes.
    let size: Int
    /// The modification time: seconds since 1970, and the nanoseconds within that second.
    let modified: Int
    let modifiedNanoseconds: Int

    /// The regular file at `path`; nil when there is none (missing, a folder, a device, a
    /// path holding a NUL), or when `root` is given and the file, symlinks followed, lies
    /// outside it. `root` is a real path (see ``realPath(_:)``).
    init?(_ path: String, inside root: String? = nil) {
        // One stat answers most look-ups (no such file); the real path is resolved only for a
        // file that exists, to refuse symlinks leading out of the root.
        var info = stat()
        guard !path.utf8.contains(0), stat(path, &info) == 0, info.st_mode & S_IFMT == S_IFREG,
            let resolved = Self.realPath(path), root.map({ Self.path(resolved, isInside: $0) }) ?? true,
            stat(resolved, &info) == 0, info.st_mode & S_IFMT == S_IFREG
        else { return nil }
        self.path = resolved
        size = Int(info.st_size)
        modified = Int(info.st_mtim.tv_sec)
        modifiedNanoseconds = Int(info.st_mtim.tv_nsec)
    }

    /// The path with every symlink, `.` and `..` resolved; nil when it does not exist.
    static func realPath(_ path: String) -> String? {
        guard !path.utf8.contains(0), let resolved = realpath(path, nil) else { return nil }
        defer { free(resolved) }
        return String(cString: resolved)
    }

    /// Whether `path` names a folder.
    static func isFolder(_ path: String) -> Bool {
        var info = stat()
        return !path.utf8.contains(0) && stat(path, &info) == 0 && info.st_mode & S_IFMT == S_IFDIR
    }

    /// Whether the real path `path` lies below the real path `root`. Compared by bytes, as
    /// the file system names them: `hasPrefix` compares characters, so a root spelt `é` in
    /// one normalization form would contain a sibling folder spelt in the other.
    private static func path(_ path: String, isInside root: String) -> Bool {
        let prefix = root.utf8.last == UInt8(ascii: "/") ? root : root + "/"
        return path.utf8.starts(with: prefix.utf8)
    }
}
