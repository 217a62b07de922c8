import Foundation
import Logging
import MicroCore
import MicroTesting
import Testing

/// No value a client sends reaches a log line with its control characters: CR and LF would
/// write fake lines, ESC drives the terminal the log is read in.
@Suite struct LogEscapingTests {
    private static let hostile = "x\r\nsigned_in user=root address=10.0.0.1\u{1B}[2J\u{7}\u{2028}\u{202E}end"

    @Test func messagesAndMetadataHaveTheirControlsEscaped() async throws {
        let log = LogRecorder()
        var settings = Settings()
        settings.environment = .test
        let app = App(settings: settings, logger: log.logger)
        app.post("/note") { request in
            let text = request.params["text"] ?? ""
            request.logger.warning("note: \(text)", metadata: ["text": "\(text)", "list": .array([.string(text)]), "map": ["k": .string(text)]])
            var logger = request.logger
            logger[metadataKey: "carried"] = "\(text)"
            logger.warning("carried")
            return "ok"
        }
        #expect(try await TestClient(app).post("/note", form: ["text": Self.hostile]).text == "ok")
        let lines = log.lines(at: .warning)
        #expect(lines.count == 2)
        for line in lines {
            #expect(!line.unicodeScalars.contains { $0.value < 0x20 || $0.value == 0x7F || $0 == "\u{2028}" || $0 == "\u{202E}" }, "\(line)")
        }
        #expect(lines[0].hasPrefix(#"note: x\r\nsigned_in user=root address=10.0.0.1\u{1B}[2J\u{7}\u{2028}\u{202E}end "#))
        #expect(lines[0].contains(#"text=x\r\nsigned_in"#) && lines[0].contains("list=[") && lines[0].contains("map=["))
        #expect(lines[1].contains(#"carried=x\r\nsigned_in"#))
    }

    @Test func theTextFormatQuotesValuesThatWouldReadAsFields() {
        // swift-log's text handler writes `key=value` side by side: a value holding a space,
        // `=` or a quote is quoted, so it cannot add a field.
        var text = ControlEscapingLogHandler(wrapping: StreamLogHandler.standardError(label: "micro"))
        text[metadataKey: "detail"] = "ci user=root event=signed_in"
        #expect(text[metadataKey: "detail"] == .string(#""ci user=root event=signed_in""#))
        text[metadataKey: "detail"] = #"say "hi"\ now"#
        #expect(text[metadataKey: "detail"] == .string(#""say \"hi\"\\ now""#))
        text[metadataKey: "detail"] = "plain-value"
        #expect(text[metadataKey: "detail"] == .string("plain-value"))
        text[metadataKey: "detail"] = ""
        #expect(text[metadataKey: "detail"] == .string("\"\""))
        // A control character is escaped first, then the value quoted for its space.
        text[metadataKey: "detail"] = "a b\nuser=root"
        #expect(text[metadataKey: "detail"] == .string(#""a b\\nuser=root""#))

        // JSON and other handlers keep each value apart already: nothing is quoted for them.
        var json = ControlEscapingLogHandler(wrapping: JsonLogHandler(label: "micro"))
        json[metadataKey: "detail"] = "ci user=root"
        #expect(json[metadataKey: "detail"] == .string("ci user=root"))
    }

    @Test func plainTextIsLeftAsItIs() {
        for text in ["GET /tools/encode 200 12B 0.4ms", "émile signed in from 2001:db8::1", "“quoted” — ok", "日本語", ""] {
            #expect(ControlEscapingLogHandler.escape(text) == text)
        }
        #expect(ControlEscapingLogHandler.escape("a\tb\u{85}c\u{2066}") == #"a\tb\u{85}c\u{2066}"#)
        // Invisible and private characters too: a zero-width space, a private-use one, an unassigned one.
        #expect(ControlEscapingLogHandler.escape("a\u{200B}b\u{E000}c\u{0378}") == #"a\u{200B}b\u{E000}c\u{378}"#)
    }
}
