import Foundation

/// Whether a path still names the file it named when the watch began, answered mostly without
/// looking the path up: from the file itself, held open.
///
/// Putting another file in the path's place (a rename over it, a removal) takes a link from the
/// watched file, which changes its link count and its change time; so while `fstat` finds both
/// as they were, the path names it still. When they changed (a write changes the time too), the
/// path is looked up once more.
final class FileWatch: Sendable {
    /// The file's link count and change time, as last seen while the path named it.
    private struct Stamp: Equatable {
        let links: UInt64
        let seconds: Int
        let nanoseconds: Int

        init(_ info: stat) {
            links = UInt64(info.st_nlink)
            seconds = info.st_ctim.tv_sec
            nanoseconds = info.st_ctim.tv_nsec
        }
    }

    private let descriptor: Int32
    private let identity: FileIdentity
    private let seen: Locked<Stamp>

    /// A watch of the file at `path`; nil when it cannot be opened for reading.
    init?(_ path: String) {
        let descriptor = open(path, O_RDONLY | O_CLOEXEC)
        guard descriptor >= 0 else { return nil }
        var info = stat()
        guard fstat(descriptor, &info) == 0 else {
            close(descriptor)
            return nil
        }
        self.descriptor = descriptor
        identity = FileIdentity(info)
        seen = Locked(Stamp(info))
    }

    deinit {
        close(descriptor)
    }

    /// Whether `path` still names the watched file.
    func isStill(at path: String) -> Bool {
        var info = stat()
        guard fstat(descriptor, &info) == 0 else { return FileIdentity(path) == identity }
        let stamp = Stamp(info)
        if seen.withLock({ $0 == stamp }) { return true }
        guard FileIdentity(path) == identity else { return false }
        seen.withLock { $0 = stamp }
        return true
    }
}
