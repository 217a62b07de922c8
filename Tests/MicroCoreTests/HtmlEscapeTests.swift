import Foundation
import MicroCore
import MicroTestSupport
import MicroTesting
import Testing

/// `Html.escape`, Micro's escaper for pages, against a byte-wise reference.
@Suite struct HtmlEscapeTests {
    @Test func escapesTheFiveCharactersAndNothingElse() {
        #expect(Html.escape(#"<a href="x">Tom & 'Jerry'</a>"#) == "&lt;a href=&quot;x&quot;&gt;Tom &amp; &#39;Jerry&#39;&lt;/a&gt;")
        #expect(Html.escape("plain text, é, 日本, 👋🏽") == "plain text, é, 日本, 👋🏽")
        #expect(Html.escape("") == "")
        #expect(Html.escape("&amp;") == "&amp;amp;")
        #expect(Html.escape("<") == "&lt;")
        #expect(Html.escape("a\0b") == "a\0b")
    }

    @Test func aCharacterJoinedToItsNeighboursIsStillEscaped() {
        // One grapheme cluster each: a Character-wise escaper sees none of them as `"`, `>`, `<`.
        #expect(Html.escape("\"\u{301}") == "&quot;\u{301}")
        #expect(Html.escape(">\u{301}") == "&gt;\u{301}")
        #expect(Html.escape("\u{600}<") == "\u{600}&lt;")
        #expect(Html.escape("'\u{FE0F}") == "&#39;\u{FE0F}")
        #expect(Html.escape("\u{1F468}\u{200D}&\u{200D}\u{1F469}") == "\u{1F468}\u{200D}&amp;\u{200D}\u{1F469}")
        #expect(Html.escape(HostileText.metaRefresh)
            == "x&quot;\u{301}&gt;\u{301}\u{600}&lt;meta http-equiv=refresh content=0;url=//evil.example\u{301}&gt;")
    }

    @Test(arguments: HostileText.all.map(\.text))
    func agreesWithTheByteWiseReference(text: String) {
        let escaped = Html.escape(text)
        #expect(escaped == HostileText.referenceEscape(text))
        #expect(!HostileText.holdsMarkup(escaped))
        #expect(HostileText.unescape(escaped) == Array(text.utf8))
    }

    @Test func textFromInvalidUtf8IsEscapedLikeAnyOther() {
        // Micro decodes invalid UTF-8 with replacement characters; what is left is escaped.
        for bytes: [UInt8] in [[0xFF, 0xFE, 0x3C, 0x62, 0x3E], [0xED, 0xA0, 0x80, 0x22, 0x3E], [0xC0, 0xBC, 0x3E], [0x22, 0xCC, 0x3E, 0xCC]] {
            let text = String(decoding: bytes, as: UTF8.self)
            let escaped = Html.escape(text)
            #expect(escaped == HostileText.referenceEscape(text))
            #expect(!HostileText.holdsMarkup(escaped))
        }
    }

    @Test func longTextWithFewAndManyEscapes() {
        let sparse = String(repeating: "abcdéfgh", count: 4096) + "<" + String(repeating: "z", count: 4096)
        #expect(Html.escape(sparse) == HostileText.referenceEscape(sparse))
        let dense = String(repeating: "<>&\"'\u{301}", count: 4096)
        #expect(Html.escape(dense) == HostileText.referenceEscape(dense))
        // A substring's storage starts inside a larger string.
        let slice = String(HostileText.metaRefresh.dropFirst(2))
        #expect(Html.escape(slice) == HostileText.referenceEscape(slice))
    }

    @Test func bridgedTextIsEscapedToo() {
        // NSString-backed text has no contiguous UTF-8 of its own on every platform.
        let bridged = NSString(string: HostileText.metaRefresh) as String
        #expect(Html.escape(bridged) == HostileText.referenceEscape(HostileText.metaRefresh))
    }

    @Test(arguments: HostileText.all.map(\.text))
    func errorPagesShowMessagesAndDetailsEscaped(text: String) async throws {
        let app = isolatedApp(environment: .development)
        app.get("/refused") { _ -> String in throw HttpError(.badRequest, text) }
        app.get("/failed") { _ -> String in throw HostileError(text: text) }
        let client = TestClient(app)
        let refused = try await client.get("/refused")
        #expect(refused.status == .badRequest)
        #expect(refused.text.contains("<p>" + HostileText.referenceEscape(text) + "</p>"))
        #expect(!Array(refused.text.utf8).containsRun(Array(text.utf8)))
        // Development shows the error's description.
        let failed = try await client.get("/failed")
        #expect(failed.status == .internalServerError)
        #expect(failed.text.contains(HostileText.referenceEscape(text)))
        #expect(!Array(failed.text.utf8).containsRun(Array(text.utf8)))
    }
}

/// An error whose description is hostile.
private struct HostileError: Error, CustomStringConvertible {
    let text: String
    var description: String { text }
}

extension Array where Element == UInt8 {
    /// Whether `run` occurs in these bytes.
    fileprivate func containsRun(_ run: [UInt8]) -> Bool {
        guard !run.isEmpty, run.count <= count else { return run.isEmpty }
        return (0...(count - run.count)).contains { self[$0..<($0 + run.count)].elementsEqual(run) }
    }
}
