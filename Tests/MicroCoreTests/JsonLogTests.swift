import Foundation
import Logging
@testable import MicroCore
import MicroTestSupport
import MicroTesting
import Synchronization
import Testing

/// `MICRO_LOG_FORMAT=json`: one JSON object per line that any parser reads back whole,
/// whatever the values hold.
@Suite struct JsonLogTests {
    /// Keeps the lines a handler writes.
    final class Lines: Sendable {
        private let kept = Mutex<[[UInt8]]>([])
        var all: [[UInt8]] { kept.withLock { $0 } }
        func keep(_ line: [UInt8]) { kept.withLock { $0.append(line) } }

        /// Each line parsed: a JSON object, ending in the one newline it has.
        func objects() throws -> [[String: Any]] {
            try all.map { line in
                #expect(line.last == UInt8(ascii: "\n") && line.dropLast().firstIndex(of: UInt8(ascii: "\n")) == nil)
                return try #require(try JSONSerialization.jsonObject(with: Data(line)) as? [String: Any])
            }
        }
    }

    private static func logger(_ lines: Lines, label: String = "micro") -> Logger {
        Logger(label: label) { JsonLogHandler(label: $0, write: lines.keep) }
    }

    @Test func aLineHasTheTimeLevelLabelSourceMessageAndMetadata() throws {
        let lines = Lines()
        var logger = Self.logger(lines)
        logger[metadataKey: "request_id"] = "5f3a9c-1b"
        logger.warning("account event", metadata: ["event": "signed_in", "user": "ann", "count": "\(3)"])
        let object = try #require(try lines.objects().first)
        #expect(object["level"] as? String == "warning")
        #expect(object["label"] as? String == "micro")
        #expect(object["source"] as? String == "MicroCoreTests")
        #expect(object["message"] as? String == "account event")
        #expect(object["event"] as? String == "signed_in")
        #expect(object["user"] as? String == "ann")
        #expect(object["count"] as? String == "3")
        #expect(object["request_id"] as? String == "5f3a9c-1b")
        let time = try #require(object["time"] as? String)
        #expect(time.wholeMatch(of: /\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d\.\d{3}Z/) != nil, "\(time)")
        let parsed = try #require(ISO8601DateFormatter.withFractionalSeconds.date(from: time))
        #expect(abs(parsed.timeIntervalSinceNow) < 60)
    }

    @Test func theTimeIsUtcToTheMillisecond() {
        var line: [UInt8] = []
        LogTime.append(seconds: 951_782_400 + 86_399, milliseconds: 7, to: &line)
        #expect(String(decoding: line, as: UTF8.self) == "2000-02-29T23:59:59.007Z")
        line = []
        LogTime.append(seconds: 0, milliseconds: 999, to: &line)
        #expect(String(decoding: line, as: UTF8.self) == "1970-01-01T00:00:00.999Z")
    }

    @Test(arguments: HostileText.all.map(\.text) + ["\"}\n{\"level\":\"critical\"", "a\\\"b", "\u{0}\u{1F}\u{7F}", "\u{2028}\u{2029}"])
    func hostileTextStaysInsideItsString(_ text: String) throws {
        let lines = Lines()
        let logger = Self.logger(lines)
        logger.info("\(text)", metadata: ["value": "\(text)", "list": [.string(text)], "map": [text: .string(text)]])
        let objects = try lines.objects()
        #expect(objects.count == 1)
        let object = try #require(objects.first)
        #expect(object["message"] as? String == text)
        #expect(object["value"] as? String == text)
        #expect(object["list"] as? [String] == [text])
        #expect(object["map"] as? [String: String] == [text: text])
        #expect(object["level"] as? String == "info")
    }

    @Test func metadataNamedLikeAFieldDoesNotReplaceIt() throws {
        let lines = Lines()
        let logger = Self.logger(lines)
        logger.error("the real one", metadata: ["message": "forged", "level": "debug", "time": "0"])
        let object = try #require(try lines.objects().first)
        #expect(object["message"] as? String == "the real one")
        #expect(object["level"] as? String == "error")
        #expect(object["meta_message"] as? String == "forged")
        #expect(object["meta_level"] as? String == "debug")
        #expect(object["meta_time"] as? String == "0")
    }

    @Test func theEventsMetadataWinsOverTheProvidersWhichWinsOverTheLoggers() throws {
        let lines = Lines()
        let provider = Logger.MetadataProvider { ["from": "provider", "trace": "t-1"] }
        var logger = Logger(label: "micro") { JsonLogHandler(label: $0, metadataProvider: provider, write: lines.keep) }
        logger[metadataKey: "from"] = "logger"
        logger[metadataKey: "kept"] = "yes"
        logger.info("one")
        logger.info("two", metadata: ["from": "event"])
        let objects = try lines.objects()
        #expect(objects.map { $0["from"] as? String } == ["provider", "event"])
        #expect(objects.allSatisfy { $0["kept"] as? String == "yes" && $0["trace"] as? String == "t-1" })
    }

    @Test func anErrorIsAFieldOfItsOwn() throws {
        struct Broken: Error, CustomStringConvertible { var description: String { "disk \"full\"" } }
        let lines = Lines()
        let logger = Self.logger(lines)
        logger.log(level: .error, "write failed", error: Broken())
        let object = try #require(try lines.objects().first)
        #expect(object["error"] as? String == "disk \"full\"")
    }

    @Test func theLevelFiltersAsOtherHandlersDo() throws {
        let lines = Lines()
        var logger = Self.logger(lines)
        logger.logLevel = .warning
        logger.info("dropped")
        logger.warning("kept")
        #expect(try lines.objects().map { $0["message"] as? String } == ["kept"])
    }

    @Test func linesWrittenAtOnceFromManyThreadsStayWhole() async throws {
        // Through the writer standard error has, to a pipe, with lines longer than the
        // pipe writes at once (PIPE_BUF): without its lock, two lines interleave.
        var ends: [Int32] = [0, 0]
        #expect(pipe(&ends) == 0)
        let (readEnd, writeEnd) = (ends[0], ends[1])
        let writer = LineWriter(descriptor: writeEnd)
        // A thread of its own reads: a task blocked in read(2) would hold one of the few
        // threads the tasks writing below need.
        let read = Mutex<[UInt8]>([])
        let done = DispatchSemaphore(value: 0)
        let reader = Thread {
            var buffer = [UInt8](repeating: 0, count: 65_536)
            while true {
                let count = Glibc.read(readEnd, &buffer, buffer.count)
                if count <= 0 { break }
                read.withLock { $0 += buffer[..<count] }
            }
            close(readEnd)
            done.signal()
        }
        reader.start()
        let logger = Logger(label: "micro") { JsonLogHandler(label: $0, write: writer.write) }
        await withTaskGroup(of: Void.self) { group in
            for task in 0..<8 {
                group.addTask {
                    for index in 0..<100 {
                        logger.info("line", metadata: ["task": "\(task)", "index": "\(index)", "pad": "\(String(repeating: "x", count: 9000))"])
                    }
                }
            }
        }
        close(writeEnd)
        done.wait()
        let lines = read.withLock { $0 }.split(separator: UInt8(ascii: "\n"))
        #expect(lines.count == 800)
        var seen = Set<String>()
        for line in lines {
            let object = try #require(try JSONSerialization.jsonObject(with: Data(line)) as? [String: Any])
            seen.insert("\(object["task"] ?? "")/\(object["index"] ?? "")")
        }
        #expect(seen.count == 800)
    }

    @Test func aFormatTheAppsLoggerWasNotMadeInStopsStartUp() throws {
        var settings = Settings()
        settings.environment = .test
        settings.views = nil
        // Set on the app after it made its logger.
        let later = App(settings: settings)
        later.settings.logFormat = .json
        do {
            _ = try later.makeResponder()
            Issue.record("started with a format its logger was not made in")
        } catch {
            #expect(error.message == "settings.logFormat is json, but the app's logger was made as text with the app, before the change: set it in the settings given to App(settings:), or with MICRO_LOG_FORMAT.")
        }
        // Beside a logger of the app's own making.
        settings.logFormat = .json
        let given = App(settings: settings, logger: LogRecorder().logger)
        do {
            _ = try given.makeResponder()
            Issue.record("started with a logger that is not JSON")
        } catch {
            #expect(error.message.hasPrefix("settings.logFormat is json, but the app logs through the logger given to App(settings:logger:)"))
        }
        // Given at the start, it is the app's format.
        #expect(throws: Never.self) { _ = try App(settings: settings).makeResponder() }
    }

    @Test func theSettingComesFromMicroLogFormat() throws {
        #expect(try Settings.fromProcess([:]).logFormat == .text)
        #expect(try Settings.fromProcess(["MICRO_LOG_FORMAT": "json"]).logFormat == .json)
        #expect(try Settings.fromProcess(["MICRO_LOG_FORMAT": "text"]).logFormat == .text)
        let error = #expect(throws: ConfigurationError.self) { try Settings.fromProcess(["MICRO_LOG_FORMAT": "JSON "]) }
        #expect(error?.message == "MICRO_LOG_FORMAT is 'JSON '; expected text or json.")
    }
}

extension ISO8601DateFormatter {
    fileprivate static var withFractionalSeconds: ISO8601DateFormatter {
        let formatter = ISO8601DateFormatter()
        formatter.formatOptions = [.withInternetDateTime, .withFractionalSeconds]
        return formatter
    }
}
