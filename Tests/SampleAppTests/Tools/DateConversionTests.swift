import Foundation
import Testing
@testable import SampleApp

@Suite struct DateConversionTests {
    let utc = TimeZone(identifier: "UTC")!
    let paris = TimeZone(identifier: "Europe/Paris")!
    let kolkata = TimeZone(identifier: "Asia/Kolkata")!
    let newYork = TimeZone(identifier: "America/New_York")!

    func iso(_ millis: Int64, _ zone: TimeZone? = nil) throws(ToolError) -> String {
        try DateConversion.format(millis, unit: .milliseconds, as: .iso8601, in: zone ?? utc)
    }

    func rfc(_ millis: Int64) throws(ToolError) -> String {
        try DateConversion.format(millis, unit: .milliseconds, as: .rfc1123, in: paris)
    }

    func error(_ body: () throws(ToolError) -> some Any) -> ToolError? {
        do {
            _ = try body()
            return nil
        } catch {
            return error
        }
    }

    // MARK: - Formatting

    @Test func epochEdgeCases() throws {
        #expect(try iso(0) == "1970-01-01T00:00:00.000Z")
        #expect(try iso(-1) == "1969-12-31T23:59:59.999Z")
        #expect(try iso(1) == "1970-01-01T00:00:00.001Z")
        #expect(try iso(1_000_000_000_000) == "2001-09-09T01:46:40.000Z")
        #expect(try iso(951_782_400_000) == "2000-02-29T00:00:00.000Z")
        #expect(try iso(-62_135_596_800_000) == "0001-01-01T00:00:00.000Z")
        #expect(try iso(-62_135_596_800_001) == "0000-12-31T23:59:59.999Z")
        #expect(try iso(-62_167_219_200_001) == "-000001-12-31T23:59:59.999Z")
        #expect(try iso(253_402_300_800_000) == "+010000-01-01T00:00:00.000Z")
    }

    @Test func theSigned32BitSecondsBoundary() throws {
        let seconds: Int64 = 1 << 31
        #expect(try DateConversion.format(seconds - 1, unit: .seconds, as: .iso8601, in: utc) == "2038-01-19T03:14:07.000Z")
        #expect(try DateConversion.format(seconds, unit: .seconds, as: .iso8601, in: utc) == "2038-01-19T03:14:08.000Z")
        #expect(try DateConversion.format(-seconds, unit: .seconds, as: .iso8601, in: utc) == "1901-12-13T20:45:52.000Z")
    }

    @Test func theRangeLimitsAreAcceptedAndOnePastThemRefused() throws {
        let limit: Int64 = 8_640_000_000_000_000
        #expect(try iso(limit) == "+275760-09-13T00:00:00.000Z")
        #expect(try iso(-limit) == "-271821-04-20T00:00:00.000Z")
        #expect(try rfc(limit) == "Sat, 13 Sep 275760 00:00:00 GMT")
        #expect(try rfc(-limit) == "Tue, 20 Apr -271821 00:00:00 GMT")
        #expect(try DateConversion.format(limit / 1000, unit: .seconds, as: .iso8601, in: utc) == "+275760-09-13T00:00:00.000Z")

        for value in [limit + 1, -limit - 1, .max, .min] {
            let refused = error { () throws(ToolError) in try iso(value) }
            #expect(refused?.field == "millis")
            #expect(refused?.message.contains("275760") == true)
        }
        for value in [limit / 1000 + 1, -limit / 1000 - 1, .max, .min] {
            let refused = error { () throws(ToolError) in
                try DateConversion.format(value, unit: .seconds, as: .iso8601, in: utc)
            }
            #expect(refused?.field == "millis")
            #expect(refused?.message.contains("seconds") == true)
        }
    }

    @Test func secondsAndMillisecondsDiffer() throws {
        #expect(try DateConversion.format(1_000_000_000, unit: .seconds, as: .iso8601, in: utc) == "2001-09-09T01:46:40.000Z")
        #expect(try DateConversion.format(1_000_000_000, unit: .milliseconds, as: .iso8601, in: utc) == "1970-01-12T13:46:40.000Z")
        #expect(try DateConversion.format(-1, unit: .seconds, as: .iso8601, in: utc) == "1969-12-31T23:59:59.000Z")
        #expect(DateConversion.Unit.allCases.map(\.rawValue) == ["milliseconds", "seconds"])
        #expect(DateConversion.Unit(rawValue: "seconds")?.label == "Seconds")
    }

    @Test func rfc1123IsAlwaysInGmt() throws {
        #expect(try rfc(0) == "Thu, 01 Jan 1970 00:00:00 GMT")
        #expect(try rfc(784_111_777_000) == "Sun, 06 Nov 1994 08:49:37 GMT")
        #expect(try rfc(-1) == "Wed, 31 Dec 1969 23:59:59 GMT")
        #expect(try DateConversion.format(784_111_777, unit: .seconds, as: .rfc1123, in: kolkata) == "Sun, 06 Nov 1994 08:49:37 GMT")
    }

    @Test func zonesShowTheirOffsetOfTheDay() throws {
        let summer: Int64 = 1_719_835_200_000  // 2024-07-01T12:00:00Z
        let winter: Int64 = 1_705_320_000_000  // 2024-01-15T12:00:00Z
        #expect(try iso(summer, paris) == "2024-07-01T14:00:00.000+02:00")
        #expect(try iso(winter, paris) == "2024-01-15T13:00:00.000+01:00")
        #expect(try iso(0, kolkata) == "1970-01-01T05:30:00.000+05:30")
        #expect(try iso(winter, newYork) == "2024-01-15T07:00:00.000-05:00")
        #expect(try iso(summer, newYork) == "2024-07-01T08:00:00.000-04:00")
        // Before 1911 Paris kept its mean solar time, 9 minutes 21 seconds ahead of Greenwich.
        #expect(try iso(-2_000_000_000_000, paris) == "1906-08-16T20:36:01.000+00:09:21")
    }

    @Test func customPatternsAreWrittenInTheZone() throws {
        let format = DateConversion.Format.custom("yyyy-MM-dd HH:mm:ss.SSS")
        #expect(try DateConversion.format(1_000_000_000_123, unit: .milliseconds, as: format, in: utc) == "2001-09-09 01:46:40.123")
        #expect(try DateConversion.format(1_000_000_000_123, unit: .milliseconds, as: format, in: paris) == "2001-09-09 03:46:40.123")
        #expect(try DateConversion.format(-1, unit: .milliseconds, as: format, in: utc) == "1969-12-31 23:59:59.999")
        let words = DateConversion.Format.custom("EEEE d MMMM yyyy 'at' h:mm a")
        #expect(try DateConversion.format(0, unit: .milliseconds, as: words, in: newYork) == "Wednesday 31 December 1969 at 7:00 PM")
        // Doubles lose the millisecond this far out; the tool does not.
        let far: Int64 = -5_208_462_623_296_229
        #expect(try DateConversion.format(far, unit: .milliseconds, as: .custom("SSS|S|SSSS|'SSS'"), in: utc) == "771|7|7710|SSS")
        // Proleptic Gregorian, as ISO 8601, rather than Julian before 1582.
        #expect(try DateConversion.format(-12_219_292_800_001, unit: .milliseconds, as: .custom("yyyy-MM-dd"), in: utc) == "1582-10-14")
        #expect(try DateConversion.format(-8_640_000_000_000_000, unit: .milliseconds, as: .custom("yyyy-MM-dd G"), in: utc) == "271822-04-20 BC")
    }

    @Test func formatsAreNamed() throws {
        #expect(try DateConversion.Format.named("iso8601") == .iso8601)
        #expect(try DateConversion.Format.named(" RFC1123 ") == .rfc1123)
        #expect(try DateConversion.Format.named("yyyy-MM-dd HH:mm:ss.SSS") == .custom("yyyy-MM-dd HH:mm:ss.SSS"))
        for name in DateConversion.Format.suggestions {
            #expect(try DateConversion.Format.named(name).name == name)
        }
        #expect(DateConversion.Format.suggestions.contains("yyyy-MM-dd HH:mm:ss.SSS"))
        #expect(DateConversion.Format.iso8601.label == "ISO 8601")

        #expect(error { () throws(ToolError) in try DateConversion.Format.named("  ") }?.field == "format")
        #expect(try DateConversion.Format.named(String(repeating: "y", count: 64)) == .custom(String(repeating: "y", count: 64)))
        let overlong = error { () throws(ToolError) in try DateConversion.Format.named(String(repeating: "y", count: 65)) }
        #expect(overlong == ToolError(field: "format", message: "The pattern is 65 bytes long; the limit is 64."))
    }

    @Test func zonesAreFoundByTheirIanaName() throws {
        #expect(try DateConversion.zone(named: "Europe/Paris").identifier == "Europe/Paris")
        #expect(try DateConversion.zone(named: " asia/kolkata ").identifier == "Asia/Kolkata")
        #expect(try DateConversion.zone(named: "utc").secondsFromGMT(for: Date()) == 0)
        #expect(try DateConversion.zone(named: "UTC").secondsFromGMT(for: Date()) == 0)

        let unknown = error { () throws(ToolError) in try DateConversion.zone(named: "Mars/Base") }
        #expect(unknown == ToolError(field: "zone", message: "Unknown time zone 'Mars/Base'. Use an IANA name such as Europe/Paris."))
        #expect(error { () throws(ToolError) in try DateConversion.zone(named: "") }?.field == "zone")
        #expect(error { () throws(ToolError) in try DateConversion.zone(named: String(repeating: "x", count: 500)) }?.field == "zone")
    }

    // MARK: - Parsing

    @Test func parsesIso8601Forms() throws {
        #expect(try DateConversion.parse("1970-01-01T00:00:00Z", in: paris) == 0)
        #expect(try DateConversion.parse("1970-01-01T00:00:00.000Z", in: paris) == 0)
        #expect(try DateConversion.parse("1970-01-01T00:00:00.5Z", in: paris) == 500)
        #expect(try DateConversion.parse("1970-01-01T00:00:00.123456789z", in: paris) == 123)
        #expect(try DateConversion.parse("1969-12-31T23:59:59.999Z", in: paris) == -1)
        #expect(try DateConversion.parse("1970-01-01T01:00:00+01:00", in: utc) == 0)
        #expect(try DateConversion.parse("1970-01-01T05:30:00+0530", in: utc) == 0)
        #expect(try DateConversion.parse("1969-12-31T19:00:00-05", in: utc) == 0)
        #expect(try DateConversion.parse("1970-01-01 00:00", in: utc) == 0)
        #expect(try DateConversion.parse("  2001-09-09T01:46:40Z\n", in: utc) == 1_000_000_000_000)
        #expect(try DateConversion.parse("2038-01-19T03:14:08Z", in: utc) == (1 << 31) * 1000)
        #expect(try DateConversion.parse("+275760-09-13T00:00:00.000Z", in: utc) == 8_640_000_000_000_000)
        #expect(try DateConversion.parse("-271821-04-20T00:00:00.000Z", in: utc) == -8_640_000_000_000_000)
        #expect(try DateConversion.parse("2024-02-29", in: utc) == 1_709_164_800_000)
    }

    @Test func datesWithoutAnOffsetAreReadInTheZone() throws {
        #expect(try DateConversion.parse("2024-07-01T14:00:00", in: paris) == 1_719_835_200_000)
        #expect(try DateConversion.parse("2024-01-15T13:00:00.000", in: paris) == 1_705_320_000_000)
        #expect(try DateConversion.parse("1970-01-01", in: kolkata) == -19_800_000)
        #expect(try DateConversion.parse("1970-01-01", in: newYork) == 18_000_000)
        // 02:30 does not exist in Paris on 31 March 2024; it is read as the hour after.
        #expect(try iso(DateConversion.parse("2024-03-31T02:30:00", in: paris), paris) == "2024-03-31T03:30:00.000+02:00")
    }

    @Test func parsesRfc1123() throws {
        #expect(try DateConversion.parse("Thu, 01 Jan 1970 00:00:00 GMT", in: paris) == 0)
        #expect(try DateConversion.parse("Sun, 06 Nov 1994 08:49:37 GMT", in: paris) == 784_111_777_000)
        #expect(try DateConversion.parse("06 Nov 1994 08:49:37 UTC", in: paris) == 784_111_777_000)
        #expect(try DateConversion.parse("Sun, 6 Nov 1994 09:49:37 +0100", in: utc) == 784_111_777_000)
        #expect(try DateConversion.parse("Sat, 13 Sep 275760 00:00:00 GMT", in: utc) == 8_640_000_000_000_000)
        #expect(try DateConversion.parse("Tue, 20 Apr -271821 00:00:00 GMT", in: utc) == -8_640_000_000_000_000)

        let wrongDay = error { () throws(ToolError) in try DateConversion.parse("Fri, 01 Jan 1970 00:00:00 GMT", in: utc) }
        #expect(wrongDay == ToolError(field: "date", message: "1 Jan 1970 was a Thursday, not a Friday."))
    }

    @Test func roundTrips() throws {
        let values: [Int64] = [
            0, -1, 1, 999, 1_000_000_000_000, 1_719_835_200_123, -2_000_000_000_000, 253_402_300_799_999,
            -62_167_219_200_001, 8_640_000_000_000_000, -8_640_000_000_000_000, -5_208_462_623_296_229,
        ]
        for zone in [utc, paris, kolkata, newYork] {
            for value in values {
                let text = try iso(value, zone)
                #expect(try DateConversion.parse(text, in: utc) == value, "\(text)")
            }
        }
        for value in values {
            let seconds = value - ((value % 1000) + 1000) % 1000
            #expect(try DateConversion.parse(rfc(value), in: kolkata) == seconds)
        }
        let minute: Int64 = 1_709_296_200_000  // 2024-03-01T12:30:00Z
        for pattern in DateConversion.Format.suggestedPatterns {
            for zone in [utc, paris, newYork] {
                let text = try DateConversion.format(minute, unit: .milliseconds, as: .custom(pattern), in: zone)
                #expect(try DateConversion.parse(text, in: zone) == minute, "\(pattern): \(text)")
            }
        }
        let now = DateConversion.now()
        #expect(try DateConversion.parse(iso(now, paris), in: utc) == now)
    }

    @Test func nowIsTheCurrentTime() {
        let expected = Int64(Date().timeIntervalSince1970 * 1000)
        #expect(abs(DateConversion.now() - expected) < 5000)
    }

    @Test func badDatesAreRefusedOnTheDateField() {
        func refusal(_ text: String) -> ToolError? {
            error { () throws(ToolError) in try DateConversion.parse(text, in: utc) }
        }
        for text in ["", "  ", "yesterday", "1700000000000", "2024-1-1", "2024-01-01T", "2024-01-01T12", "2024-01-01Z",
            "01 Foo 2024 00:00:00 GMT", String(repeating: "2024", count: 100)]
        {
            #expect(refusal(text)?.field == "date", "\(text)")
        }
        #expect(refusal("yesterday")?.message.contains("ISO 8601") == true)
        #expect(refusal("yesterday")?.message.contains("RFC 1123") == true)
        #expect(refusal("2024-13-01") == ToolError(field: "date", message: "There is no month 13: months go from 01 to 12."))
        #expect(refusal("2023-02-29") == ToolError(field: "date", message: "There is no day 29 in Feb 2023: it has 28 days."))
        #expect(refusal("2024-04-31T00:00:00Z")?.message.contains("30 days") == true)
        #expect(refusal("2024-01-01T24:00:00Z")?.field == "date")
        #expect(refusal("2024-01-01T23:59:60Z")?.message.contains("leap seconds") == true)
        #expect(refusal("+275760-09-13T00:00:00.001Z")?.message.contains("Out of range") == true)
        #expect(refusal("-271821-04-19T23:59:59.999Z")?.message.contains("Out of range") == true)
        #expect(refusal("+999999-01-01")?.field == "date")
    }
}
