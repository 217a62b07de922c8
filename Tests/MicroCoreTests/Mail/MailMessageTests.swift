import Foundation
@testable import MicroCore
import Testing

@Suite struct MailMessageTests {
    let ann = try! MailAddress("ann@example.com")
    let tools = try! MailAddress("tools@lab.example.org")

    /// The header section's lines, with folded lines joined to the line they continue.
    static func headers(_ rendered: String) -> [String] {
        let head = rendered.components(separatedBy: "\r\n\r\n")[0]
        var fields: [String] = []
        for line in head.components(separatedBy: "\r\n") {
            if line.hasPrefix(" ") || line.hasPrefix("\t") { fields[fields.count - 1] += line } else { fields.append(line) }
        }
        return fields
    }

    /// The text of a header value made of RFC 2047 encoded-words (UTF-8, base64) and plain words.
    static func decoded(_ value: String) -> String {
        var text = ""
        for word in value.split(separator: " ", omittingEmptySubsequences: false) {
            if word.hasPrefix("=?utf-8?B?"), word.hasSuffix("?=") {
                let base64 = word.dropFirst(10).dropLast(2)
                text += String(decoding: Data(base64Encoded: String(base64))!, as: UTF8.self)
            } else {
                text += (text.isEmpty ? "" : " ") + word
            }
        }
        return text
    }

    /// A quoted-printable body decoded (soft line breaks joined, `=XX` as bytes).
    static func decodedBody(_ rendered: String) -> String {
        let body = rendered.components(separatedBy: "\r\n\r\n").dropFirst().joined(separator: "\r\n\r\n")
        var bytes: [UInt8] = []
        var lines = body.components(separatedBy: "\r\n")
        if lines.last == "" { lines.removeLast() }
        for (index, line) in lines.enumerated() {
            var utf8 = Array(line.utf8)[...]
            let soft = utf8.last == UInt8(ascii: "=")
            if soft { utf8 = utf8.dropLast() }
            while let byte = utf8.first {
                if byte == UInt8(ascii: "=") {
                    bytes.append(UInt8(String(decoding: utf8.dropFirst().prefix(2), as: UTF8.self), radix: 16)!)
                    utf8 = utf8.dropFirst(3)
                } else {
                    bytes.append(byte)
                    utf8 = utf8.dropFirst()
                }
            }
            if !soft, index < lines.count - 1 { bytes += Array("\n".utf8) }
        }
        return String(decoding: bytes, as: UTF8.self)
    }

    @Test func aMessageHasItsHeadersInOrder() {
        let date = Date(timeIntervalSince1970: 784_111_777)
        let message = MailMessage(from: tools, fromName: "Lab Tools", to: ann, subject: "Hello", body: "Hi Ann.\n", date: date)
        let headers = Self.headers(message.rendered)
        #expect(headers == [
            "Date: Sun, 06 Nov 1994 08:49:37 +0000",
            "Message-ID: <\(message.messageId)>",
            "From: \"Lab Tools\" <tools@lab.example.org>",
            "To: ann@example.com",
            "Subject: Hello",
            "MIME-Version: 1.0",
            "Content-Type: text/plain; charset=utf-8",
            "Content-Transfer-Encoding: quoted-printable",
        ])
        #expect(message.messageId.wholeMatch(of: /[0-9a-f]{32}@lab\.example\.org/) != nil)
        #expect(MailMessage(from: tools, to: ann, subject: "", body: "").messageId != message.messageId)
        #expect(message.rendered.hasSuffix("\r\n\r\nHi Ann.\r\n"))
    }

    @Test(arguments: ["Ann\r\nBcc: eve@x.com", "Ann\nBcc: eve@x.com", "Ann\rBcc: eve@x.com", "Ann\u{85}Bcc: eve@x.com", "Ann\u{2028}Bcc: eve@x.com"])
    func aLineBreakInANameOrSubjectAddsNoHeader(_ hostile: String) {
        let message = MailMessage(from: tools, fromName: hostile, to: ann, toName: hostile, subject: hostile, body: "x")
        let headers = Self.headers(message.rendered)
        #expect(headers.count == 8)
        #expect(!headers.contains { $0.lowercased().hasPrefix("bcc") })
        #expect(!message.rendered.components(separatedBy: "\r\n\r\n")[0].contains { $0 == "\n" || $0 == "\r" })
        #expect(message.fromName == "Ann Bcc: eve@x.com")
        #expect(message.subject == "Ann Bcc: eve@x.com")
        #expect(headers.contains("Subject: Ann Bcc: eve@x.com"))
        #expect(headers.contains("To: \"Ann Bcc: eve@x.com\" <ann@example.com>"))
    }

    @Test func namesSetLaterAreCleanedToo() {
        var message = MailMessage(from: tools, to: ann, subject: "x", body: "x")
        message.toName = "Eve\r\nBcc: eve@x.com"
        message.subject = "\u{1B}[31mred\u{0}"
        #expect(message.toName == "Eve Bcc: eve@x.com")
        #expect(message.subject == "[31mred")
    }

    @Test func aQuoteInANameIsEscaped() {
        let message = MailMessage(from: tools, fromName: #"Ann "the lab" \ Lee"#, to: ann, subject: "x", body: "x")
        #expect(Self.headers(message.rendered).contains(#"From: "Ann \"the lab\" \\ Lee" <tools@lab.example.org>"#))
    }

    @Test(arguments: [
        "Grüße aus dem Labor", "密码重置", "Ihr Passwort für das Labor — bitte innerhalb einer Stunde setzen, sonst verfällt der Link 🙂",
        "=?utf-8?B?SGk=?= looks encoded", "a" + String(repeating: "b", count: 100),
    ])
    func aSubjectOutsidePlainAsciiIsEncodedWordsThatDecodeToIt(_ subject: String) {
        let message = MailMessage(from: tools, to: ann, subject: subject, body: "x")
        let head = message.rendered.components(separatedBy: "\r\n\r\n")[0]
        #expect(head.components(separatedBy: "\r\n").allSatisfy { $0.utf8.count <= 76 })
        let field = Self.headers(message.rendered).first { $0.hasPrefix("Subject: ") }!
        #expect(field.hasPrefix("Subject: =?utf-8?B?"))
        #expect(Self.decoded(String(field.dropFirst(9))) == subject)
        #expect(head.allSatisfy { $0.isASCII })
    }

    @Test func anEmptySubjectIsTheFieldAlone() {
        let message = MailMessage(from: tools, to: ann, subject: " \r\n ", body: "x")
        #expect(message.subject == "")
        #expect(Self.headers(message.rendered).contains("Subject:"))
    }

    @Test func aLongPlainSubjectFoldsAtItsSpaces() {
        let subject = Array(repeating: "password", count: 20).joined(separator: " ")
        let message = MailMessage(from: tools, to: ann, subject: subject, body: "x")
        let lines = message.rendered.components(separatedBy: "\r\n\r\n")[0].components(separatedBy: "\r\n")
        #expect(lines.allSatisfy { $0.utf8.count <= 76 })
        #expect(lines.filter { $0.hasPrefix(" ") }.count == 2)
        #expect(Self.headers(message.rendered).contains("Subject: " + subject))
    }

    @Test func aNameOutsideAsciiIsEncodedWords() {
        let message = MailMessage(from: tools, fromName: "Zoë Ångström", to: ann, toName: String(repeating: "Ω", count: 80), subject: "x", body: "x")
        let headers = Self.headers(message.rendered)
        let from = headers.first { $0.hasPrefix("From: ") }!
        #expect(from.hasPrefix("From: =?utf-8?B?"))
        #expect(from.hasSuffix(" <tools@lab.example.org>"))
        #expect(Self.decoded(String(from.dropFirst(6).dropLast(24))) == "Zoë Ångström")
        let to = headers.first { $0.hasPrefix("To: ") }!
        #expect(Self.decoded(String(to.dropFirst(4).dropLast(18))) == String(repeating: "Ω", count: 80))
        #expect(message.rendered.components(separatedBy: "\r\n").allSatisfy { $0.utf8.count <= 76 })
    }

    @Test func theBodyIsQuotedPrintableInShortLinesThatDecodeToIt() {
        let body = [
            "Grüße, Zoë!",
            "Open this link: https://tools.example.com/set-password?token=" + String(repeating: "A1b2", count: 40),
            "a=b, trailing space ",
            "tab\tinside and trailing\t",
            "\u{1B}[31m and a bare \r carriage return",
            String(repeating: "é", count: 60),
        ].joined(separator: "\n")
        let message = MailMessage(from: tools, to: ann, subject: "x", body: body)
        let rendered = message.rendered
        let lines = rendered.components(separatedBy: "\r\n")
        #expect(lines.allSatisfy { $0.utf8.count <= 76 })
        #expect(rendered.allSatisfy { $0.isASCII })
        #expect(lines.contains("Gr=C3=BC=C3=9Fe, Zo=C3=AB!"))
        #expect(lines.contains("a=3Db, trailing space=20"))
        #expect(lines.contains("tab\tinside and trailing=09"))
        #expect(lines.contains("=1B[31m and a bare=20"))
        #expect(lines.contains(" carriage return"))
        #expect(Self.decodedBody(rendered) == body.replacingOccurrences(of: "\r", with: "\n"))
    }

    @Test func everyLineEndsInCrlf() {
        let message = MailMessage(from: tools, fromName: "Zoë", to: ann, subject: "Grüße", body: "one\ntwo\r\nthree\rfour\n\n")
        let bytes = Array(message.rendered.utf8)
        for (index, byte) in bytes.enumerated() {
            if byte == 0x0A { #expect(index > 0 && bytes[index - 1] == 0x0D) }
            if byte == 0x0D { #expect(index + 1 < bytes.count && bytes[index + 1] == 0x0A) }
        }
        #expect(message.rendered.hasSuffix("\r\n\r\none\r\ntwo\r\nthree\r\nfour\r\n\r\n"))
    }

    @Test func dataDotStuffsEachLineThatStartsWithADot() {
        let message = MailMessage(from: tools, to: ann, subject: "x", body: ".hidden\n..two\n.\nend.\n")
        let data = SmtpMailer.data(message)
        let lines = data.components(separatedBy: "\r\n")
        #expect(lines.suffix(5) == ["..hidden", "...two", "..", "end.", "."])
        #expect(!lines.dropLast().contains("."))
    }
}
