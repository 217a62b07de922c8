import Foundation

/// Files that hold secrets (a users database, the development session secret): made readable
/// by their owner only from the moment they exist, and a warning when an existing one is not.
public enum PrivateFile {
    /// The mode a new secret file is created with: read and write for its owner, nothing for
    /// anyone else, whatever the umask (which can only take bits away).
    static let mode: mode_t = 0o600

    /// Creates `path` with mode 0600 and returns its descriptor, open for writing; nil when the
    /// file already exists. Throws `errno`'s description for any other failure.
    static func create(_ path: String) throws(PrivateFileError) -> Int32? {
        let descriptor = open(path, O_CREAT | O_EXCL | O_WRONLY | O_CLOEXEC, mode)
        if descriptor >= 0 { return descriptor }
        if errno == EEXIST { return nil }
        throw PrivateFileError(String(cString: strerror(errno)))
    }

    /// Writes all of `bytes` to `descriptor` and flushes them to disk.
    static func writeAll(_ bytes: [UInt8], to descriptor: Int32) throws(PrivateFileError) {
        var written = 0
        while written < bytes.count {
            let count = bytes[written...].withUnsafeBytes { write(descriptor, $0.baseAddress, $0.count) }
            if count < 0, errno == EINTR { continue }
            guard count > 0 else { throw PrivateFileError(String(cString: strerror(errno))) }
            written += count
        }
        guard fsync(descriptor) == 0 else { throw PrivateFileError(String(cString: strerror(errno))) }
    }

    /// What to log when the file at `path` (which holds `what`) is open to group or others:
    /// the file, its mode and the fix, which keeps the owner's own bits (`chmod 600` for a 0644
    /// file, `chmod 400` for a read-only 0444 one). Nil when it is private or missing.
    public static func warning(for path: String, holding what: String) -> String? {
        var info = stat()
        guard stat(path, &info) == 0 else { return nil }
        let permissions = info.st_mode & 0o777
        guard permissions & 0o077 != 0 else { return nil }
        return "\(path) holds \(what) and other local users can \(permissions & 0o044 != 0 ? "read" : "use") it (mode \(octal(permissions, digits: 4))); make it private: chmod \(octal(permissions & 0o700, digits: 3)) \(shellQuoted(path))"
    }

    /// `0644`, `600`.
    private static func octal(_ permissions: mode_t, digits: Int) -> String {
        let text = String(permissions, radix: 8)
        return String(repeating: "0", count: max(0, digits - text.count)) + text
    }

    /// The path as a shell would need it typed: as it is when it holds only safe characters,
    /// else in single quotes.
    static func shellQuoted(_ path: String) -> String {
        let safe = path.utf8.allSatisfy { byte in
            (byte >= UInt8(ascii: "a") && byte <= UInt8(ascii: "z")) || (byte >= UInt8(ascii: "A") && byte <= UInt8(ascii: "Z"))
                || (byte >= UInt8(ascii: "0") && byte <= UInt8(ascii: "9")) || "/._-+,:@%=".utf8.contains(byte)
        }
        if safe, !path.isEmpty { return path }
        return "'" + path.replacingOccurrences(of: "'", with: "'\\''") + "'"
    }
}
