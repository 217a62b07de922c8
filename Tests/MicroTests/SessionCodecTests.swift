import Foundation
import Testing
@testable import Micro

@Suite struct SessionCodecTests {
    @Test func base64UrlMatchesRfc4648() {
        let vectors = ["": "", "f": "Zg", "fo": "Zm8", "foo": "Zm9v", "foob": "Zm9vYg", "fooba": "Zm9vYmE", "foobar": "Zm9vYmFy"]
        for (plain, encoded) in vectors {
            #expect(Base64Url.encode(Array(plain.utf8)) == encoded)
            #expect(Base64Url.decode(encoded) == Array(plain.utf8))
        }
        // The URL-safe alphabet, and agreement with Foundation's standard one.
        let bytes: [UInt8] = [0xFB, 0xFF, 0xBF, 0x00, 0x10]
        #expect(Base64Url.encode(bytes) == "-_-_ABA")
        for count in 0..<64 {
            let random = SecureRandom.bytes(count)
            let standard = Data(random).base64EncodedString()
                .replacingOccurrences(of: "+", with: "-").replacingOccurrences(of: "/", with: "_").replacingOccurrences(of: "=", with: "")
            #expect(Base64Url.encode(random) == standard)
            #expect(Base64Url.decode(standard) == random)
        }
    }

    @Test func base64UrlRefusesAnythingNotCanonical() {
        #expect(Base64Url.decode("Zh") == nil)  // spare bits set: "Zg" is the canonical form
        #expect(Base64Url.decode("Zm9") == nil)
        #expect(Base64Url.decode("Zm9v=") == nil)
        #expect(Base64Url.decode("Zm+v") == nil)
        #expect(Base64Url.decode("Z") == nil)
        #expect(Base64Url.decode("Zm9v Zm9v") == nil)
    }

    @Test func sessionDataRoundTripsAndGarbageIsRefused() {
        var data = SessionData(now: 1_700_000_000)
        data.values = ["name": "\"Ann\"", "prefs": #"{"zone":"Europe\/Paris"}"#, "": "", "é": "\"ü\""]
        let bytes = SessionCodec.encode(data)
        #expect(SessionCodec.decode(bytes) == data)
        #expect(SessionCodec.decode([]) == nil)
        #expect(SessionCodec.decode(Array(bytes.dropLast())) == nil)
        #expect(SessionCodec.decode(bytes + [0]) == nil)
        var wrongVersion = bytes
        wrongVersion[0] = 2
        #expect(SessionCodec.decode(wrongVersion) == nil)
        #expect(SessionCodec.decode([1, 0xFF, 0xFF, 0xFF, 0xFF]) == nil)
    }

    @Test func secureRandomBytesDiffer() {
        #expect(SecureRandom.bytes(32).count == 32)
        #expect(SecureRandom.bytes(5).count == 5)
        #expect(SecureRandom.bytes(32) != SecureRandom.bytes(32))
    }
}
