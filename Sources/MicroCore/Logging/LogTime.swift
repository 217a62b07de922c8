#if canImport(Glibc)
import Glibc
#endif

/// The time of a log line: UTC, to the millisecond, in ISO 8601 (`2026-11-27T15:09:03.125Z`),
/// made from the clock without Foundation's formatters, which cost more than the line.
enum LogTime {
    static func appendNow(to line: inout [UInt8]) {
        var now = timespec()
        clock_gettime(CLOCK_REALTIME, &now)
        append(seconds: now.tv_sec, milliseconds: Int(now.tv_nsec / 1_000_000), to: &line)
    }

    static func append(seconds: Int, milliseconds: Int, to line: inout [UInt8]) {
        var time = tm()
        var seconds = seconds
        gmtime_r(&seconds, &time)
        digits(Int(time.tm_year) + 1900, 4, &line)
        line.append(UInt8(ascii: "-"))
        digits(Int(time.tm_mon) + 1, 2, &line)
        line.append(UInt8(ascii: "-"))
        digits(Int(time.tm_mday), 2, &line)
        line.append(UInt8(ascii: "T"))
        digits(Int(time.tm_hour), 2, &line)
        line.append(UInt8(ascii: ":"))
        digits(Int(time.tm_min), 2, &line)
        line.append(UInt8(ascii: ":"))
        digits(Int(time.tm_sec), 2, &line)
        line.append(UInt8(ascii: "."))
        digits(milliseconds, 3, &line)
        line.append(UInt8(ascii: "Z"))
    }

    private static func digits(_ value: Int, _ count: Int, _ line: inout [UInt8]) {
        var divisor = 1
        for _ in 1..<count { divisor *= 10 }
        var value = value
        while divisor > 0 {
            line.append(UInt8(ascii: "0") + UInt8(value / divisor % 10))
            value %= divisor
            divisor /= 10
        }
    }
}
