import Foundation

/// Dates as forms and JSON bodies send them, read by bytes: the ISO 8601 forms that HTML's
/// date inputs and APIs write.
///
/// `2024-03-01` (midnight UTC), `2024-03-01T12:30` (what `datetime-local` sends), with
/// optional seconds and fraction (`12:30:05.250`), and an optional zone (`Z`, `+01:00`,
/// `-0500`). A time without a zone is UTC. A space may stand for the `T`.
enum IsoDate {
    /// What a field that does not parse is told.
    static let expected = "Not a date (YYYY-MM-DD, or YYYY-MM-DDTHH:MM with optional seconds and zone)."

    /// The date `text` writes, or nil.
    static func parse(_ text: String) -> Date? {
        let bytes = Array(text.utf8)
        // The longest accepted form: 2024-03-01T12:30:05.123456789+01:00.
        guard bytes.count <= 35 else { return nil }
        var index = 0

        func number(_ digits: Int) -> Int? {
            guard index + digits <= bytes.count else { return nil }
            var value = 0
            for offset in 0..<digits {
                let digit = bytes[index + offset] &- UInt8(ascii: "0")
                guard digit < 10 else { return nil }
                value = value * 10 + Int(digit)
            }
            index += digits
            return value
        }
        func skip(_ byte: Unicode.Scalar) -> Bool {
            guard index < bytes.count, bytes[index] == UInt8(ascii: byte) else { return false }
            index += 1
            return true
        }

        guard let year = number(4), skip("-"), let month = number(2), skip("-"), let day = number(2),
            (1...12).contains(month), (1...daysIn(month: month, year: year)).contains(day)
        else { return nil }
        var seconds = daysSince1970(year: year, month: month, day: day) * 86_400
        var nanoseconds = 0
        if index < bytes.count {
            guard skip("T") || skip("t") || skip(" "), let hour = number(2), hour < 24, skip(":"),
                let minute = number(2), minute < 60
            else { return nil }
            seconds += hour * 3600 + minute * 60
            if skip(":") {
                guard let second = number(2), second < 60 else { return nil }
                seconds += second
                if skip(".") || skip(",") {
                    let start = index
                    while index < bytes.count, bytes[index] &- UInt8(ascii: "0") < 10 { index += 1 }
                    let digits = index - start
                    guard (1...9).contains(digits) else { return nil }
                    index = start
                    guard let fraction = number(digits) else { return nil }
                    nanoseconds = fraction
                    for _ in digits..<9 { nanoseconds *= 10 }
                }
            }
            if skip("Z") || skip("z") {
            } else if index < bytes.count {
                let sign = bytes[index] == UInt8(ascii: "-") ? -1 : 1
                guard skip("+") || skip("-"), let hours = number(2), hours < 24 else { return nil }
                _ = skip(":")
                guard let minutes = number(2), minutes < 60 else { return nil }
                seconds -= sign * (hours * 3600 + minutes * 60)
            }
        }
        guard index == bytes.count else { return nil }
        return Date(timeIntervalSince1970: Double(seconds) + Double(nanoseconds) / 1e9)
    }

    private static func daysIn(month: Int, year: Int) -> Int {
        switch month {
        case 2: year % 4 == 0 && (year % 100 != 0 || year % 400 == 0) ? 29 : 28
        case 4, 6, 9, 11: 30
        default: 31
        }
    }

    /// Days from 1970-01-01 in the proleptic Gregorian calendar (Howard Hinnant's
    /// `days_from_civil`).
    private static func daysSince1970(year: Int, month: Int, day: Int) -> Int {
        let year = month <= 2 ? year - 1 : year
        let era = (year >= 0 ? year : year - 399) / 400
        let yearOfEra = year - era * 400
        let dayOfYear = (153 * (month + (month > 2 ? -3 : 9)) + 2) / 5 + day - 1
        let dayOfEra = yearOfEra * 365 + yearOfEra / 4 - yearOfEra / 100 + dayOfYear
        return era * 146_097 + dayOfEra - 719_468
    }
}
