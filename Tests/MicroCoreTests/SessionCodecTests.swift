import Foundation
@testable import MicroCore
import MicroTesting
import Testing

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

    // MARK: The cache of opened cookies

    @Test func anOpenedCookieIsCachedAndAForgedOneNever() throws {
        let store = CookieSessionStore(secret: String(repeating: "k", count: 32))
        var data = SessionData(now: 1000)
        data.values["who"] = "\"ann\""
        let value = try store.save(data)
        #expect(store.load(cookieValue: value) == data)
        #expect(store.opened.usage.entries == 1)
        #expect(store.load(cookieValue: value) == data)  // from the cache
        #expect(store.opened.usage.entries == 1)

        // Changed, truncated or garbage values open to nothing and are not kept.
        var changed = Array(value.utf8)
        changed[changed.count / 2] = changed[changed.count / 2] == UInt8(ascii: "A") ? UInt8(ascii: "B") : UInt8(ascii: "A")
        for forged in [String(decoding: changed, as: UTF8.self), String(value.dropLast(4)), "garbage", ""] {
            #expect(store.load(cookieValue: forged) == nil)
        }
        #expect(store.opened.usage.entries == 1)
        // Another secret's store has its own cache: the value does not open there.
        #expect(CookieSessionStore(secret: String(repeating: "x", count: 32)).load(cookieValue: value) == nil)
    }

    @Test func theCacheIsBoundedInEntriesAndBytes() {
        let cache = OpenedCookieCache(capacity: 10, byteLimit: 4000)
        let data = SessionData(now: 0)
        for index in 0..<100 { cache.remember(data, for: "cookie-\(index)") }
        #expect(cache.usage.entries <= 10)
        #expect(cache.usage.bytes <= 4000)

        // Large sessions: the byte limit binds before the count does.
        var large = SessionData(now: 0)
        large.values["notes"] = String(repeating: "n", count: 500)
        for index in 0..<10 { cache.remember(large, for: "large-\(index)") }
        #expect(cache.usage.bytes <= 4000)
        #expect(cache.usage.entries < 10)
        #expect(cache.value(for: "large-9") == large)
        // A session larger than a generation is not kept, and evicts nothing.
        var huge = SessionData(now: 0)
        huge.values["notes"] = String(repeating: "h", count: 2500)
        let before = cache.usage
        cache.remember(huge, for: "huge")
        #expect(cache.usage == before)
        #expect(cache.value(for: "huge") == nil)
    }

    @Test func theCacheKeepsTheValuesStillInUseThroughChurn() {
        let cache = OpenedCookieCache(capacity: 100)
        let data = SessionData(now: 0)
        // A browser sends its cookie every few requests while 2000 others come and go.
        for index in 0..<2000 {
            cache.remember(data, for: "passing-\(index)")
            if index % 20 == 0 {
                if cache.value(for: "regular") == nil { cache.remember(data, for: "regular") }
            }
        }
        #expect(cache.value(for: "regular") == data)
        // The newest half of the capacity is always there.
        #expect((1950..<2000).allSatisfy { cache.value(for: "passing-\($0)") != nil })
        #expect(cache.value(for: "passing-0") == nil)
        #expect(cache.usage.entries <= 100)
    }

    @Test func onlyTheCookiesOwnSpellingFindsAnEntry() throws {
        let store = CookieSessionStore(secret: String(repeating: "k", count: 32))
        var data = SessionData(now: 1000)
        data.values["who"] = "\"ann\""
        var value = try store.save(data)
        while !value.contains("K") { value = try store.save(data) }  // a fresh nonce each time
        #expect(store.load(cookieValue: value) == data)
        // U+212A KELVIN SIGN is canonically equivalent to "K": equal as a Swift String.
        let kelvin = value.replacingOccurrences(of: "K", with: "\u{212A}")
        #expect(kelvin == value)
        #expect(store.load(cookieValue: kelvin) == nil)
    }

    @Test func theMemoryStoreFindsASessionOnlyByItsIdsOwnSpelling() throws {
        let store = MemorySessionStore()
        var data = SessionData(now: 1000)
        while !data.id.contains("K") { data = SessionData(now: 1000) }
        let value = try store.save(data)
        #expect(store.load(cookieValue: value) == data)
        let kelvin = value.replacingOccurrences(of: "K", with: "\u{212A}")
        #expect(kelvin == value)
        #expect(store.load(cookieValue: kelvin) == nil)
    }

    @Test func exactStringsAreKeysByTheirBytes() {
        let composed = ExactString("k\u{E5}re"), decomposed = ExactString("ka\u{30A}re")
        #expect(composed.text == decomposed.text)  // equal as Swift Strings
        #expect(composed != decomposed)
        #expect(composed == ExactString("k\u{E5}re"))
        let cache = BoundedCache<ExactString, String>(capacity: 10, byteLimit: 1000) { _, _ in 1 }
        cache.remember("composed", for: composed)
        #expect(cache.value(for: decomposed) == nil)
        cache.remember("decomposed", for: decomposed)
        #expect(cache.value(for: composed) == "composed")
        #expect(cache.value(for: decomposed) == "decomposed")
    }
}
