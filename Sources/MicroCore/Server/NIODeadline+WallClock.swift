import NIOCore
import NIOPosix

extension NIODeadline {
    /// Seconds since 1970, from the wall clock.
    static var wallClockSeconds: Int64 {
        var now = timespec()
        clock_gettime(CLOCK_REALTIME, &now)
        return Int64(now.tv_sec)
    }
}
