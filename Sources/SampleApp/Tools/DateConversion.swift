import Foundation

/// Milliseconds (or seconds) since 1970-01-01T00:00:00Z to formatted dates, and back.
///
/// Dates use the proleptic Gregorian calendar over JavaScript's range, ±8,640,000,000,000,000 ms
/// (years -271821 to 275760), so that a value taken from or given to a browser means the same
/// date here. ISO 8601 and RFC 1123 are computed here rather than by `DateFormatter`, whose
/// millisecond field drifts for far dates and whose calendar turns Julian before 1582.
enum DateConversion {
    /// The unit of a number of the form.
    enum Unit: String, CaseIterable, Sendable {
        case milliseconds, seconds

        /// The name shown in the picker.
        var label: String {
            switch self {
            case .milliseconds: "Milliseconds"
            case .seconds: "Seconds"
            }
        }
    }

    /// How a date is written.
    enum Format: Equatable, Sendable {
        /// `2024-03-01T12:30:00.000+01:00`, in the chosen zone.
        case iso8601
        /// `Fri, 01 Mar 2024 11:30:00 GMT`, always in GMT as HTTP writes it.
        case rfc1123
        /// A `DateFormatter` pattern such as `yyyy-MM-dd HH:mm:ss.SSS`, in the chosen zone.
        case custom(String)

        /// The longest custom pattern taken.
        static let maximumPatternLength = 64

        /// Custom patterns offered by the picker; `parse` reads dates written with each of them.
        static let suggestedPatterns = [
            "yyyy-MM-dd HH:mm:ss.SSS",
            "yyyy-MM-dd HH:mm:ss",
            "yyyy-MM-dd HH:mm:ss.SSS xxx",
            "EEE, d MMM yyyy HH:mm:ss Z",
            "dd/MM/yyyy HH:mm:ss",
            "MM/dd/yyyy hh:mm:ss a",
            "EEEE, MMMM d, yyyy h:mm a",
            "yyyyMMdd'T'HHmmss",
        ]

        /// Every choice of the picker, as names ``named(_:)`` takes.
        static let suggestions = ["iso8601", "rfc1123"] + suggestedPatterns

        /// The format a picker value or typed pattern names: "iso8601", "rfc1123", else a pattern.
        static func named(_ text: String) throws(ToolError) -> Format {
            let name = text.trimmingCharacters(in: .whitespacesAndNewlines)
            switch name.lowercased() {
            case "iso8601", "iso 8601", "iso-8601": return .iso8601
            case "rfc1123", "rfc 1123", "rfc-1123": return .rfc1123
            default: break
            }
            guard !name.isEmpty else {
                throw ToolError(field: "format", message: "Choose a format, or type a pattern such as yyyy-MM-dd HH:mm:ss.")
            }
            // Bytes, not characters: combining marks make a short "character" count long.
            guard name.utf8.count <= maximumPatternLength else {
                throw ToolError(
                    field: "format",
                    message: "The pattern is \(name.utf8.count) bytes long; the limit is \(maximumPatternLength).")
            }
            return .custom(name)
        }

        /// The text ``named(_:)`` turns back into this format.
        var name: String {
            switch self {
            case .iso8601: "iso8601"
            case .rfc1123: "rfc1123"
            case .custom(let pattern): pattern
            }
        }

        /// The name shown in the picker.
        var label: String {
            switch self {
            case .iso8601: "ISO 8601"
            case .rfc1123: "RFC 1123 (HTTP)"
            case .custom(let pattern): pattern
            }
        }
    }

    /// The largest distance from the epoch, in milliseconds: JavaScript's `Date` range.
    static let limit: Int64 = 8_640_000_000_000_000

    /// The time zone with the IANA name `name` (case-insensitive), such as `Europe/Paris`.
    /// A control character anywhere (U+0000-U+001F, U+007F-U+009F, a tab or a line break
    /// included) is an error, checked before anything else: the C library reads a name only up
    /// to a NUL, so `UTC` followed by a NUL and more would otherwise pass for UTC.
    static func zone(named name: String) throws(ToolError) -> TimeZone {
        if let control = name.unicodeScalars.first(where: isControl) {
            let code = String(control.value, radix: 16, uppercase: true)
            throw ToolError(
                field: "zone",
                message: "A time zone name has no control characters; this one has U+\(String(repeating: "0", count: 4 - code.count))\(code). Use an IANA name such as Europe/Paris.")
        }
        let name = name.trimmingCharacters(in: .whitespacesAndNewlines)
        guard !name.isEmpty else {
            throw ToolError(field: "zone", message: "Enter a time zone, such as UTC or Europe/Paris.")
        }
        if name.count <= 64 {
            if let zone = TimeZone(identifier: name) { return zone }
            // TimeZone(identifier:) wants the exact case; people type "utc" or "europe/paris".
            // ICU's list lacks some current names (Asia/Kolkata), hence also the capitalised guess.
            let known = ["UTC", "GMT"] + TimeZone.knownTimeZoneIdentifiers
            if let match = known.first(where: { $0.caseInsensitiveCompare(name) == .orderedSame }),
                let zone = TimeZone(identifier: match)
            {
                return zone
            }
            if let zone = TimeZone(identifier: capitalisedZoneName(name)) { return zone }
        }
        throw ToolError(field: "zone", message: "Unknown time zone '\(shortened(name))'. Use an IANA name such as Europe/Paris.")
    }

    /// Whether `text` holds a control character: C0 (U+0000-U+001F), DEL or C1 (U+007F-U+009F).
    static func hasControlCharacter(_ text: String) -> Bool {
        text.unicodeScalars.contains(where: isControl)
    }

    private static func isControl(_ scalar: Unicode.Scalar) -> Bool {
        scalar.value < 0x20 || (0x7F...0x9F).contains(scalar.value)
    }

    /// `name` with a capital after each `/`, `_` or `-`: "america/new_york" -> "America/New_York".
    private static func capitalisedZoneName(_ name: String) -> String {
        var out = ""
        var capital = true
        for character in name {
            out += capital ? character.uppercased() : character.lowercased()
            capital = character == "/" || character == "_" || character == "-"
        }
        return out
    }

    /// `value` since the epoch, in `unit`, written in `format`; `zone` applies to ISO 8601 and
    /// custom patterns.
    static func format(_ value: Int64, unit: Unit, as format: Format, in zone: TimeZone) throws(ToolError) -> String {
        let millis = try milliseconds(value, unit: unit)
        switch format {
        case .iso8601: return iso8601(millis, in: zone)
        case .rfc1123: return rfc1123(millis)
        case .custom(let pattern): return custom(millis, pattern: pattern, in: zone)
        }
    }

    /// The milliseconds since the epoch of a date written in ISO 8601, RFC 1123 or a suggested
    /// pattern; dates without an offset are read in `zone`.
    static func parse(_ text: String, in zone: TimeZone) throws(ToolError) -> Int64 {
        let text = text.trimmingCharacters(in: .whitespacesAndNewlines)
        guard !text.isEmpty else {
            throw ToolError(field: "date", message: "Enter a date, such as 2024-03-01T12:30:00Z.")
        }
        // Longer than any accepted form: saves the pattern attempts on pasted junk.
        if text.utf8.count <= 100 {
            if let millis = try parseIso8601(text, in: zone) { return millis }
            if let millis = try parseRfc1123(text) { return millis }
            for pattern in Format.suggestedPatterns {
                if let date = formatter(pattern: pattern, in: zone).date(from: text) {
                    let millis = (date.timeIntervalSince1970 * 1000).rounded()
                    guard abs(millis) <= Double(limit) else { throw outOfRange(field: "date") }
                    return Int64(millis)
                }
            }
        }
        throw ToolError(
            field: "date",
            message: "Not a date this tool reads: '\(shortened(text))'. Use ISO 8601 (2024-03-01T12:30:00Z, "
                + "2024-03-01T12:30:00.250+01:00, 2024-03-01T12:30 or 2024-03-01), RFC 1123 "
                + "(Fri, 01 Mar 2024 12:30:00 GMT) or one of the patterns "
                + Format.suggestedPatterns.joined(separator: ", ") + ".")
    }

    /// The current time in milliseconds since the epoch.
    static func now() -> Int64 {
        Int64((Date().timeIntervalSince1970 * 1000).rounded(.down))
    }

    // MARK: - Range

    /// `value` in milliseconds, or an error on "millis" beyond JavaScript's range.
    private static func milliseconds(_ value: Int64, unit: Unit) throws(ToolError) -> Int64 {
        switch unit {
        case .milliseconds:
            guard value.magnitude <= limit.magnitude else { throw outOfRange(field: "millis") }
            return value
        case .seconds:
            let (millis, overflow) = value.multipliedReportingOverflow(by: 1000)
            guard !overflow, millis.magnitude <= limit.magnitude else {
                throw ToolError(
                    field: "millis",
                    message: "Out of range: dates go from -8,640,000,000,000 to 8,640,000,000,000 seconds "
                        + "(years -271821 to 275760), the range of JavaScript's Date.")
            }
            return millis
        }
    }

    private static func outOfRange(field: String) -> ToolError {
        ToolError(
            field: field,
            message: "Out of range: dates go from -8,640,000,000,000,000 to 8,640,000,000,000,000 milliseconds "
                + "(years -271821 to 275760), the range of JavaScript's Date.")
    }

    // MARK: - Calendar arithmetic

    /// A moment split into proleptic Gregorian fields.
    private struct CivilTime {
        var year: Int64
        var month: Int
        var day: Int
        var hour: Int
        var minute: Int
        var second: Int
        var millisecond: Int
        /// 0 for Sunday to 6 for Saturday.
        var weekday: Int
    }

    private static let millisPerDay: Int64 = 86_400_000
    private static let monthNames = ["Jan", "Feb", "Mar", "Apr", "May", "Jun", "Jul", "Aug", "Sep", "Oct", "Nov", "Dec"]
    private static let weekdayNames = ["Sun", "Mon", "Tue", "Wed", "Thu", "Fri", "Sat"]
    private static let fullWeekdayNames = ["Sunday", "Monday", "Tuesday", "Wednesday", "Thursday", "Friday", "Saturday"]

    /// The fields of `millis` since the epoch, as a clock at UTC shows them.
    private static func civil(_ millis: Int64) -> CivilTime {
        var (days, rest) = millis.quotientAndRemainder(dividingBy: millisPerDay)
        if rest < 0 {
            days -= 1
            rest += millisPerDay
        }
        let date = civilDate(days: days)
        let time = Int(rest)
        var weekday = Int((days + 4) % 7)  // 1970-01-01 was a Thursday
        if weekday < 0 { weekday += 7 }
        return CivilTime(
            year: date.year, month: date.month, day: date.day, hour: time / 3_600_000,
            minute: time / 60_000 % 60, second: time / 1000 % 60, millisecond: time % 1000, weekday: weekday)
    }

    /// Days since 1970-01-01 of a proleptic Gregorian date (Howard Hinnant's `days_from_civil`).
    private static func days(year: Int64, month: Int, day: Int) -> Int64 {
        let y = month <= 2 ? year - 1 : year
        let era = (y >= 0 ? y : y - 399) / 400
        let yearOfEra = y - era * 400
        let dayOfYear = Int64((153 * (month > 2 ? month - 3 : month + 9) + 2) / 5 + day - 1)
        let dayOfEra = yearOfEra * 365 + yearOfEra / 4 - yearOfEra / 100 + dayOfYear
        return era * 146_097 + dayOfEra - 719_468
    }

    /// The proleptic Gregorian date `days` after 1970-01-01 (Howard Hinnant's `civil_from_days`).
    private static func civilDate(days: Int64) -> (year: Int64, month: Int, day: Int) {
        let z = days + 719_468
        let era = (z >= 0 ? z : z - 146_096) / 146_097
        let dayOfEra = z - era * 146_097
        let yearOfEra = (dayOfEra - dayOfEra / 1460 + dayOfEra / 36_524 - dayOfEra / 146_096) / 365
        let dayOfYear = dayOfEra - (365 * yearOfEra + yearOfEra / 4 - yearOfEra / 100)
        let shiftedMonth = (5 * dayOfYear + 2) / 153
        let day = Int(dayOfYear - (153 * shiftedMonth + 2) / 5 + 1)
        let month = Int(shiftedMonth < 10 ? shiftedMonth + 3 : shiftedMonth - 9)
        return (yearOfEra + era * 400 + (month <= 2 ? 1 : 0), month, day)
    }

    private static func daysInMonth(_ month: Int, of year: Int64) -> Int {
        switch month {
        case 2: (year % 4 == 0 && year % 100 != 0) || year % 400 == 0 ? 29 : 28
        case 4, 6, 9, 11: 30
        default: 31
        }
    }

    /// The offset of `zone` from UTC, in seconds, at `millis` since the epoch.
    private static func offset(of zone: TimeZone, at millis: Int64) -> Int {
        // Whole seconds are exact as a Double over the whole range; that is all the zone needs.
        let seconds = millis >= 0 ? millis / 1000 : (millis - 999) / 1000
        return zone.secondsFromGMT(for: Date(timeIntervalSince1970: Double(seconds)))
    }

    /// The moment at which clocks in `zone` show `local` (milliseconds of a UTC-like count).
    /// In a gap (spring forward) it lands an hour later; in an overlap, on one of the two.
    private static func moment(ofLocal local: Int64, in zone: TimeZone) -> Int64 {
        let guess = local - Int64(offset(of: zone, at: local)) * 1000
        return local - Int64(offset(of: zone, at: guess)) * 1000
    }

    // MARK: - Writing

    private static func padded(_ value: some BinaryInteger, _ width: Int) -> String {
        let digits = String(value)
        return digits.count >= width ? digits : String(repeating: "0", count: width - digits.count) + digits
    }

    /// ISO 8601 with milliseconds and the zone's offset; years beyond 0...9999 in the expanded
    /// `±YYYYYY` form, as JavaScript's `toISOString` writes them.
    private static func iso8601(_ millis: Int64, in zone: TimeZone) -> String {
        let offsetSeconds = offset(of: zone, at: millis)
        let time = civil(millis + Int64(offsetSeconds) * 1000)
        let year = (0...9999).contains(time.year)
            ? padded(time.year, 4) : (time.year < 0 ? "-" : "+") + padded(time.year.magnitude, 6)
        return "\(year)-\(padded(time.month, 2))-\(padded(time.day, 2))T\(padded(time.hour, 2)):"
            + "\(padded(time.minute, 2)):\(padded(time.second, 2)).\(padded(time.millisecond, 3))"
            + offsetText(offsetSeconds)
    }

    /// `Z`, or `±hh:mm`, with `:ss` for the odd historic offset (Paris was +00:09:21 until 1911).
    private static func offsetText(_ seconds: Int) -> String {
        guard seconds != 0 else { return "Z" }
        let size = abs(seconds)
        let text = (seconds < 0 ? "-" : "+") + padded(size / 3600, 2) + ":" + padded(size / 60 % 60, 2)
        return size % 60 == 0 ? text : text + ":" + padded(size % 60, 2)
    }

    /// RFC 1123 in GMT; years beyond 0...9999 written as JavaScript's `toUTCString` does.
    private static func rfc1123(_ millis: Int64) -> String {
        let time = civil(millis)
        let year = (time.year < 0 ? "-" : "") + padded(time.year.magnitude, 4)
        return "\(weekdayNames[time.weekday]), \(padded(time.day, 2)) \(monthNames[time.month - 1]) \(year) "
            + "\(padded(time.hour, 2)):\(padded(time.minute, 2)):\(padded(time.second, 2)) GMT"
    }

    /// `millis` written with a `DateFormatter` pattern in `zone`.
    private static func custom(_ millis: Int64, pattern: String, in zone: TimeZone) -> String {
        // DateFormatter works on Double seconds, which lose the millisecond far from 1970 and
        // show 772 for 771: format whole seconds and write the fraction fields here.
        var (seconds, fraction) = millis.quotientAndRemainder(dividingBy: 1000)
        if fraction < 0 {
            seconds -= 1
            fraction += 1000
        }
        let pattern = replacingFractionFields(of: pattern, with: padded(fraction, 3))
        return formatter(pattern: pattern, in: zone).string(from: Date(timeIntervalSince1970: Double(seconds)))
    }

    /// `pattern` with each run of `S` outside quotes turned into a quoted literal of `digits`
    /// (cut or zero-filled to the run's length).
    private static func replacingFractionFields(of pattern: String, with digits: String) -> String {
        var out = ""
        var quoted = false
        var run = 0
        func flush() {
            guard run > 0 else { return }
            let text = run <= digits.count
                ? String(digits.prefix(run)) : digits + String(repeating: "0", count: run - digits.count)
            out += "'\(text)'"
            run = 0
        }
        for character in pattern {
            if !quoted && character == "S" {
                run += 1
                continue
            }
            flush()
            if character == "'" { quoted.toggle() }
            out.append(character)
        }
        flush()
        return out
    }

    /// A POSIX-locale, proleptic Gregorian, non-lenient formatter for `pattern` in `zone`.
    private static func formatter(pattern: String, in zone: TimeZone) -> DateFormatter {
        let formatter = DateFormatter()
        formatter.locale = Locale(identifier: "en_US_POSIX")
        var calendar = Calendar(identifier: .gregorian)
        calendar.timeZone = zone
        formatter.calendar = calendar
        formatter.timeZone = zone
        // ICU turns Julian before 1582 unless told otherwise, and Date.distantPast (year 1) is
        // not early enough: move the change before the whole range.
        formatter.gregorianStartDate = Date(timeIntervalSince1970: -1e14)
        formatter.isLenient = false
        formatter.dateFormat = pattern
        return formatter
    }

    // MARK: - Reading

    /// A cursor over the bytes of a date.
    private struct Scanner {
        let bytes: [UInt8]
        var index = 0

        init(_ text: String) { bytes = Array(text.utf8) }

        var atEnd: Bool { index == bytes.count }

        /// Moves past `character` if it is next.
        mutating func take(_ character: Character) -> Bool {
            guard !atEnd, let ascii = character.asciiValue, bytes[index] == ascii else { return false }
            index += 1
            return true
        }

        /// The number written by exactly `count` digits next, if they are there.
        mutating func digits(_ count: Int) -> Int? {
            guard bytes.count - index >= count else { return nil }
            var value = 0
            for byte in bytes[index..<index + count] {
                guard (0x30...0x39).contains(byte) else { return nil }
                value = value * 10 + Int(byte - 0x30)
            }
            index += count
            return value
        }

        /// The digits next, as text (empty if none).
        mutating func digitRun() -> String {
            let start = index
            while !atEnd, (0x30...0x39).contains(bytes[index]) { index += 1 }
            return String(decoding: bytes[start..<index], as: UTF8.self)
        }
    }

    /// ISO 8601 (`2024-03-01`, `2024-03-01T12:30`, `...:00.250`, `...Z`, `...+01:00`, `+275760-...`);
    /// nil if `text` does not have that shape, an error if it does but names no date.
    private static func parseIso8601(_ text: String, in zone: TimeZone) throws(ToolError) -> Int64? {
        var scanner = Scanner(text)
        let year: Int64
        if scanner.take("+") || scanner.take("-") {
            let negative = scanner.bytes[0] == UInt8(ascii: "-")
            guard let digits = scanner.digits(6) else { return nil }
            year = negative ? -Int64(digits) : Int64(digits)
        } else {
            guard let digits = scanner.digits(4) else { return nil }
            year = Int64(digits)
        }
        guard scanner.take("-"), let month = scanner.digits(2), scanner.take("-"), let day = scanner.digits(2) else {
            return nil
        }
        var hour = 0, minute = 0, second = 0, millisecond = 0
        var offsetSeconds: Int?
        if !scanner.atEnd {
            guard scanner.take("T") || scanner.take("t") || scanner.take(" "),
                let h = scanner.digits(2), scanner.take(":"), let m = scanner.digits(2)
            else { return nil }
            (hour, minute) = (h, m)
            if scanner.take(":") {
                guard let s = scanner.digits(2) else { return nil }
                second = s
                if scanner.take(".") || scanner.take(",") {
                    let fraction = scanner.digitRun()
                    guard (1...9).contains(fraction.count) else { return nil }
                    // Beyond the millisecond is cut, not rounded: 59.9999 stays in the same second.
                    millisecond = Int(fraction.padding(toLength: 3, withPad: "0", startingAt: 0).prefix(3)) ?? 0
                }
            }
            if scanner.take("Z") || scanner.take("z") {
                offsetSeconds = 0
            } else if !scanner.atEnd {
                guard let (sign, size) = parseOffset(&scanner) else { return nil }
                offsetSeconds = sign * size
            }
            guard scanner.atEnd else { return nil }
        }
        try checkFields(year: year, month: month, day: day, hour: hour, minute: minute, second: second)
        let local = (days(year: year, month: month, day: day) * 86_400 + Int64(hour * 3600 + minute * 60 + second))
            * 1000 + Int64(millisecond)
        let millis = offsetSeconds.map { local - Int64($0) * 1000 } ?? moment(ofLocal: local, in: zone)
        guard millis.magnitude <= limit.magnitude else { throw outOfRange(field: "date") }
        return millis
    }

    /// `±hh`, `±hhmm`, `±hh:mm` or `±hh:mm:ss` as a sign and a size in seconds.
    private static func parseOffset(_ scanner: inout Scanner) -> (sign: Int, size: Int)? {
        let sign: Int
        if scanner.take("+") {
            sign = 1
        } else if scanner.take("-") {
            sign = -1
        } else {
            return nil
        }
        guard let hours = scanner.digits(2) else { return nil }
        var minutes = 0, seconds = 0
        if scanner.take(":") {
            guard let m = scanner.digits(2) else { return nil }
            minutes = m
            if scanner.take(":") {
                guard let s = scanner.digits(2) else { return nil }
                seconds = s
            }
        } else if let m = scanner.digits(2) {
            minutes = m
        }
        guard hours <= 23, minutes <= 59, seconds <= 59 else { return nil }
        return (sign, hours * 3600 + minutes * 60 + seconds)
    }

    /// An error on "date" naming the field out of its range, if one is.
    private static func checkFields(year: Int64, month: Int, day: Int, hour: Int, minute: Int, second: Int) throws(ToolError) {
        guard (1...12).contains(month) else {
            throw ToolError(field: "date", message: "There is no month \(month): months go from 01 to 12.")
        }
        let length = daysInMonth(month, of: year)
        guard (1...length).contains(day) else {
            throw ToolError(
                field: "date",
                message: "There is no day \(day) in \(monthNames[month - 1]) \(year): it has \(length) days.")
        }
        guard hour <= 23, minute <= 59 else {
            throw ToolError(field: "date", message: "There is no time \(padded(hour, 2)):\(padded(minute, 2)): hours go to 23, minutes to 59.")
        }
        guard second <= 59 else {
            throw ToolError(field: "date", message: "Seconds go to 59: Unix time does not count leap seconds.")
        }
    }

    /// RFC 1123 (`Fri, 01 Mar 2024 12:30:00 GMT`), the weekday optional and a numeric offset
    /// allowed as in e-mail; nil if `text` does not have that shape.
    private static func parseRfc1123(_ text: String) throws(ToolError) -> Int64? {
        var words = text.split(separator: " ").map(String.init)
        var weekday: Int?
        if let first = words.first, first.hasSuffix(",") {
            let name = first.dropLast().lowercased()
            guard let index = weekdayNames.firstIndex(where: { $0.lowercased() == name })
                ?? fullWeekdayNames.firstIndex(where: { $0.lowercased() == name })
            else { return nil }
            weekday = index
            words.removeFirst()
        }
        guard words.count == 5, (1...2).contains(words[0].count), let day = Int(words[0]),
            let month = monthNames.firstIndex(where: { $0.lowercased() == words[1].lowercased() }).map({ $0 + 1 }),
            (4...7).contains(words[2].count), let year = Int64(words[2])
        else { return nil }

        var clock = Scanner(words[3])
        guard let hour = clock.digits(2), clock.take(":"), let minute = clock.digits(2) else { return nil }
        var second = 0
        if clock.take(":") {
            guard let s = clock.digits(2) else { return nil }
            second = s
        }
        guard clock.atEnd else { return nil }

        let offsetSeconds: Int
        switch words[4].uppercased() {
        case "GMT", "UTC", "UT", "Z":
            offsetSeconds = 0
        default:
            var zone = Scanner(words[4])
            guard let (sign, size) = parseOffset(&zone), zone.atEnd else { return nil }
            offsetSeconds = sign * size
        }

        try checkFields(year: year, month: month, day: day, hour: hour, minute: minute, second: second)
        let date = days(year: year, month: month, day: day)
        if let weekday {
            let actual = civil(date * millisPerDay).weekday
            guard actual == weekday else {
                throw ToolError(
                    field: "date",
                    message: "\(day) \(monthNames[month - 1]) \(year) was a \(fullWeekdayNames[actual]), "
                        + "not a \(fullWeekdayNames[weekday]).")
            }
        }
        let millis = (date * 86_400 + Int64(hour * 3600 + minute * 60 + second - offsetSeconds)) * 1000
        guard millis.magnitude <= limit.magnitude else { throw outOfRange(field: "date") }
        return millis
    }

    /// `text` cut to 40 characters for quoting back in a message.
    private static func shortened(_ text: String) -> String {
        text.count <= 40 ? text : text.prefix(40) + "…"
    }
}
