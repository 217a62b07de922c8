@testable import MicroCore
import Testing

@Suite struct SmtpReplyParserTests {
    func parse(_ chunks: String...) throws(SmtpFailure) -> [SmtpReply] {
        var parser = SmtpReplyParser()
        var replies: [SmtpReply] = []
        for chunk in chunks {
            let (parsed, failure) = parser.parse(Array(chunk.utf8))
            replies += parsed
            if let failure { throw failure }
        }
        return replies
    }

    @Test func aMultiLineReplyIsOneReply() throws {
        let replies = try parse("250-mail.example.com greets you\r\n250-STARTTLS\r\n250-AUTH PLAIN LOGIN\r\n250 SIZE 1000000\r\n")
        #expect(replies == [SmtpReply(code: 250, lines: ["mail.example.com greets you", "STARTTLS", "AUTH PLAIN LOGIN", "SIZE 1000000"])])
        #expect(replies[0].extensions == ["STARTTLS": [], "AUTH": ["PLAIN", "LOGIN"], "SIZE": ["1000000"]])
    }

    @Test func repliesMaySpanReadsAndShareThem() throws {
        let replies = try parse("22", "0 ready\r", "\n250-a\r\n250", " b\r\n354 go\n", "221")
        #expect(replies == [SmtpReply(code: 220, lines: ["ready"]), SmtpReply(code: 250, lines: ["a", "b"]), SmtpReply(code: 354, lines: ["go"])])
    }

    @Test func aCodeAloneIsAReply() throws {
        #expect(try parse("250\r\n") == [SmtpReply(code: 250, lines: [""])])
    }

    @Test func theOldAuthFormIsUnderstood() throws {
        let replies = try parse("250-hi\r\n250-AUTH=LOGIN\r\n250 size 10\r\n")
        #expect(replies[0].extensions == ["AUTH": ["LOGIN"], "SIZE": ["10"]])
    }

    @Test func aLineIsAtMost512Bytes() throws {
        let longest = "250 " + String(repeating: "x", count: 506) + "\r\n"
        #expect(longest.utf8.count == 512)
        #expect(try parse(longest).count == 1)
        let tooLong = "250 " + String(repeating: "x", count: 507) + "\r\n"
        #expect(throws: SmtpFailure("the server sent a reply line longer than 512 bytes")) { try parse(tooLong) }
        // Refused while it arrives, not once its end comes.
        #expect(throws: SmtpFailure("the server sent a reply line longer than 512 bytes")) { try parse(String(repeating: "2", count: 600)) }
    }

    @Test func aReplyIsAtMost100Lines() throws {
        let hundred = String(repeating: "250-x\r\n", count: 99) + "250 end\r\n"
        #expect(try parse(hundred).first?.lines.count == 100)
        let more = String(repeating: "250-x\r\n", count: 100) + "250 end\r\n"
        #expect(throws: SmtpFailure("the server sent a reply of more than 100 lines")) { try parse(more) }
    }

    @Test(arguments: ["HTTP/1.1 200 OK\r\n", "25 short\r\n", "650 what\r\n", "250_x\r\n", "\r\n", "abc def\r\n"])
    func aLineThatIsNotAReplyIsRefused(_ line: String) {
        #expect(throws: SmtpFailure.self) { try parse(line) }
    }

    @Test func theRepliesBeforeABadLineStillCount() {
        var parser = SmtpReplyParser()
        let (replies, failure) = parser.parse(Array("554 go away\r\n\u{0}\u{0}garbage\r\n".utf8))
        #expect(replies == [SmtpReply(code: 554, lines: ["go away"])])
        #expect(failure == SmtpFailure("the server sent a line that is not a reply: '\\u{0}\\u{0}garbage'"))
    }

    @Test func oneReplyKeepsOneCode() {
        #expect(throws: SmtpFailure("the server began a reply with 250 and went on with 550")) { try parse("250-a\r\n550 b\r\n") }
    }

    @Test func aQuotedReplyHasItsControlsEscapedAndIsShort() {
        let reply = SmtpReply(code: 550, lines: ["no such\u{1B}[2J user", "try later"])
        #expect(reply.quoted == "550 no such\\u{1B}[2J user / try later")
        let long = SmtpReply(code: 550, lines: Array(repeating: String(repeating: "y", count: 500), count: 100))
        #expect(long.quoted.count == 301)
    }
}
