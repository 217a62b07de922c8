import Testing
@testable import SampleApp

@Suite struct DataEncodingTests {
    func apply(_ operation: DataEncoding.Operation, _ input: String) throws -> String {
        try DataEncoding.apply(operation, to: input)
    }

    func refusal(_ operation: DataEncoding.Operation, _ input: String) -> ToolError? {
        do {
            _ = try DataEncoding.apply(operation, to: input)
            return nil
        } catch {
            return error
        }
    }

    /// RFC 4648 §10.
    let vectors = [
        ("", "", ""), ("f", "Zg==", "66"), ("fo", "Zm8=", "666f"), ("foo", "Zm9v", "666f6f"),
        ("foob", "Zm9vYg==", "666f6f62"), ("fooba", "Zm9vYmE=", "666f6f6261"), ("foobar", "Zm9vYmFy", "666f6f626172"),
    ]

    @Test func operationsHaveNamesAndLabels() {
        #expect(DataEncoding.Operation.allCases.count == 10)
        #expect(DataEncoding.Operation(rawValue: "base64url-decode") == .base64UrlDecode)
        #expect(DataEncoding.Operation.htmlUnescape.label == "HTML unescape")
        #expect(Set(DataEncoding.Operation.allCases.map(\.label)).count == 10)
    }

    @Test func base64Rfc4648Vectors() throws {
        for (text, base64, _) in vectors {
            #expect(try apply(.base64Encode, text) == base64)
            #expect(try apply(.base64Decode, base64) == text)
            let unpadded = String(base64.prefix { $0 != "=" })
            #expect(try apply(.base64UrlEncode, text) == unpadded)
            #expect(try apply(.base64UrlDecode, unpadded) == text)
            #expect(try apply(.base64Decode, unpadded) == text)  // padding is optional
            #expect(try apply(.base64UrlDecode, base64) == text)
        }
    }

    @Test func base64UrlUsesDashAndUnderscore() throws {
        #expect(DataEncoding.base64Encode([0xFB, 0xFF, 0xBF], urlSafe: false) == "+/+/")
        #expect(DataEncoding.base64Encode([0xFB, 0xFF, 0xBF], urlSafe: true) == "-_-_")
        #expect(DataEncoding.base64Encode([0xFB, 0xFF], urlSafe: false) == "+/8=")
        #expect(DataEncoding.base64Encode([0xFB, 0xFF], urlSafe: true) == "-_8")
        #expect(try DataEncoding.base64Decode("-_8", urlSafe: true) == [0xFB, 0xFF])
        #expect(try DataEncoding.base64Decode("+/8=", urlSafe: false) == [0xFB, 0xFF])
        #expect(try apply(.base64Encode, "<<???>>") == "PDw/Pz8+Pg==")
        #expect(try apply(.base64UrlEncode, "<<???>>") == "PDw_Pz8-Pg")
        #expect(try apply(.base64UrlDecode, "PDw_Pz8-Pg") == "<<???>>")
        #expect(try apply(.base64Encode, "é") == "w6k=")
    }

    @Test func base64DecodingIgnoresWhitespace() throws {
        #expect(try apply(.base64Decode, " Zm9v\nYmFy\r\n") == "foobar")
        #expect(try apply(.base64Decode, "Zm9v\tYg = =") == "foob")
    }

    @Test func badBase64IsRefused() {
        #expect(refusal(.base64Decode, "Zm9vY") == ToolError(field: "input", message: "Not valid Base64: the length is not a multiple of 4."))
        #expect(refusal(.base64Decode, "Zg=") == ToolError(field: "input", message: "Not valid Base64: the length is not a multiple of 4."))
        #expect(refusal(.base64Decode, "Zm9v=")?.message.contains("multiple of 4") == true)
        #expect(refusal(.base64Decode, "Zg===")?.field == "input")
        #expect(refusal(.base64Decode, "Zg==Zg==")?.message.contains("only come at the end") == true)
        #expect(refusal(.base64Decode, "Zm9v!")?.message == "Not valid Base64: '!' at position 5 is not in its alphabet (A–Z, a–z, 0–9, + and /).")
        #expect(refusal(.base64Decode, "-_8")?.message.contains("choose Base64URL decode") == true)
        #expect(refusal(.base64UrlDecode, "+/8=")?.message.contains("choose Base64 decode") == true)
        #expect(refusal(.base64Decode, "Zm9vé")?.message.contains("U+00E9 at position 5") == true)
    }

    @Test func decodedBytesMustBeUtf8() {
        let refused = refusal(.base64Decode, "//8=")
        #expect(refused == ToolError(field: "input", message: "The decoded bytes are not valid UTF-8 text. As hex (2 bytes): ff ff"))
        #expect(refusal(.hexDecode, "c3")?.message.contains("c3") == true)
        #expect(refusal(.urlDecode, "%E9t%E9")?.message.contains("e9 74 e9") == true)
        #expect(refusal(.base64UrlDecode, "_-8")?.field == "input")
        let long = String(repeating: "ff", count: 100)
        #expect(refusal(.hexDecode, long)?.message.hasSuffix(" …") == true)
    }

    @Test func hexRfc4648Vectors() throws {
        for (text, _, hex) in vectors {
            #expect(try apply(.hexEncode, text) == hex)
            #expect(try apply(.hexDecode, hex) == text)
            #expect(try apply(.hexDecode, hex.uppercased()) == text)
        }
        #expect(try apply(.hexDecode, "0x666F6F") == "foo")
        #expect(try apply(.hexDecode, " 0X66 6f\n6f ") == "foo")
        #expect(try apply(.hexEncode, "é") == "c3a9")
        #expect(DataEncoding.hexEncode([0x00, 0x0F, 0xF0, 0xFF]) == "000ff0ff")
        #expect(try DataEncoding.hexDecode("000FF0ff") == [0x00, 0x0F, 0xF0, 0xFF])
    }

    @Test func badHexIsRefused() throws {
        #expect(refusal(.hexDecode, "666") == ToolError(field: "input", message: "Not valid hex: it has 3 digits, an odd number; each byte takes two."))
        #expect(refusal(.hexDecode, "66g6") == ToolError(field: "input", message: "Not valid hex: 'g' at position 3 is not a hex digit (0–9, a–f)."))
        #expect(try apply(.hexDecode, "0x") == "")
        #expect(refusal(.hexDecode, "6x66")?.message.contains("'x' at position 2") == true)
        #expect(refusal(.hexDecode, "66:6f")?.field == "input")
    }

    @Test func urlEncodingKeepsOnlyUnreservedCharacters() throws {
        #expect(try apply(.urlEncode, "AZaz09-._~") == "AZaz09-._~")
        #expect(try apply(.urlEncode, "a b&c=d/e?f#g+h%") == "a%20b%26c%3Dd%2Fe%3Ff%23g%2Bh%25")
        #expect(try apply(.urlEncode, ":/?#[]@!$&'()*+,;=") == "%3A%2F%3F%23%5B%5D%40%21%24%26%27%28%29%2A%2B%2C%3B%3D")
        #expect(try apply(.urlEncode, "é") == "%C3%A9")
        #expect(try apply(.urlEncode, " ") == "%20")
        #expect(try apply(.urlEncode, "😀") == "%F0%9F%98%80")
    }

    @Test func urlDecoding() throws {
        #expect(try apply(.urlDecode, "a+b%20c") == "a b c")
        #expect(try apply(.urlDecode, "%C3%A9t%c3%a9") == "été")
        #expect(try apply(.urlDecode, "%2B%25") == "+%")
        #expect(try apply(.urlDecode, "déjà vu") == "déjà vu")
        let text = "a b&c=d/é?😀"
        #expect(try apply(.urlDecode, apply(.urlEncode, text)) == text)
    }

    @Test func malformedPercentEscapesAreRefused() {
        let expected = ToolError(
            field: "input",
            message: "Not valid URL encoding: the '%' at position 4 is not followed by two hex digits (a literal % is written %25).")
        #expect(refusal(.urlDecode, "100%") == expected)
        #expect(refusal(.urlDecode, "100%2") == expected)
        #expect(refusal(.urlDecode, "100%G1") == expected)
        #expect(refusal(.urlDecode, "%%41")?.field == "input")
    }

    @Test func htmlEscapingRoundTrips() throws {
        let text = #"<a href="x">Tom & 'Jerry'</a>"#
        let escaped = "&lt;a href=&quot;x&quot;&gt;Tom &amp; &#39;Jerry&#39;&lt;/a&gt;"
        #expect(try apply(.htmlEscape, text) == escaped)
        #expect(try apply(.htmlUnescape, escaped) == text)
        #expect(try apply(.htmlUnescape, apply(.htmlEscape, "&amp; é 😀")) == "&amp; é 😀")
    }

    @Test func htmlUnescapeReadsNamedAndNumericEntities() throws {
        #expect(try apply(.htmlUnescape, "&apos;&nbsp;&#39;&#x27;&#X27;&#128512;&#x1F600;") == "'\u{00A0}'''😀😀")
        #expect(try apply(.htmlUnescape, "&amp;lt;") == "&lt;")
        #expect(try apply(.htmlUnescape, "AT&T &copy; &unknown; &#; &#x; &#0; &#xD800; &#x110000; &#12a; &amp") == "AT&T &copy; &unknown; &#; &#x; &#0; &#xD800; &#x110000; &#12a; &amp")
        #expect(try apply(.htmlUnescape, "&&lt;;") == "&<;")
        #expect(try apply(.htmlUnescape, "&") == "&")
    }

    @Test func inputOver64KibIsRefused() throws {
        let limit = String(repeating: "a", count: 64 * 1024)
        #expect(try apply(.hexEncode, limit).count == 128 * 1024)
        for operation in DataEncoding.Operation.allCases {
            let refused = refusal(operation, limit + "a")
            #expect(refused == ToolError(field: "input", message: "The input is 65537 bytes; the limit is 65536 bytes (64 KiB)."))
        }
    }
}
