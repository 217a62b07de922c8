#if canImport(Glibc)
import Glibc
#endif
import Synchronization

/// Writes whole lines to a file descriptor, one writer at a time: two lines written at once
/// by two threads must not interleave, whatever the descriptor is (a pipe promises it only up
/// to `PIPE_BUF` bytes, a terminal not at all).
final class LineWriter: Sendable {
    /// Standard error, where swift-log's own handler writes too.
    static let standardError = LineWriter(descriptor: 2)

    private let descriptor: Int32
    private let lock = Mutex(())

    init(descriptor: Int32) {
        self.descriptor = descriptor
    }

    /// Writes `line` (its newline included), retrying short writes and interruptions; a line
    /// that cannot be written (the descriptor closed) is dropped, as swift-log's own handler
    /// drops it.
    func write(_ line: [UInt8]) {
        lock.withLock { _ in
            line.withUnsafeBytes { buffer in
                guard let start = buffer.baseAddress else { return }
                var offset = 0
                while offset < buffer.count {
                    let written = Glibc.write(descriptor, start + offset, buffer.count - offset)
                    if written > 0 {
                        offset += written
                    } else if written < 0, errno == EINTR {
                        continue
                    } else {
                        return
                    }
                }
            }
        }
    }
}
