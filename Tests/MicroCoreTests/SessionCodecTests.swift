import Foundation
@testable import MicroCore
import MicroTestSupport
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
        for version: UInt8 in [0, 3] {
            var wrongVersion = bytes
            wrongVersion[0] = version
            #expect(SessionCodec.decode(wrongVersion) == nil)
        }
        #expect(SessionCodec.decode([1, 0xFF, 0xFF, 0xFF, 0xFF]) == nil)
    }

    /// The bytes a cookie sealed before sessions were timed to the millisecond holds: version 1,
    /// with the time it began in seconds.
    private func versionOne(id: String, created: Int64, lastSeen: Int64, values: [(String, String)]) -> [UInt8] {
        func append(_ value: some FixedWidthInteger, to bytes: inout [UInt8]) {
            withUnsafeBytes(of: value.bigEndian) { bytes.append(contentsOf: $0) }
        }
        func append(_ text: String, to bytes: inout [UInt8]) {
            append(UInt32(text.utf8.count), to: &bytes)
            bytes.append(contentsOf: text.utf8)
        }
        var bytes: [UInt8] = [1]
        append(id, to: &bytes)
        append(created, to: &bytes)
        append(lastSeen, to: &bytes)
        append(UInt32(values.count), to: &bytes)
        for (key, value) in values {
            append(key, to: &bytes)
            append(value, to: &bytes)
        }
        return bytes
    }

    @Test func aVersionOneSessionReadsAsBegunAtTheStartOfItsSecond() throws {
        let bytes = versionOne(id: "abc", created: 1_700_000_000, lastSeen: 1_700_000_042, values: [("theme", "\"dark\"")])
        let data = try #require(SessionCodec.decode(bytes))
        #expect(data.id == "abc")
        #expect(data.createdMilliseconds == 1_700_000_000_000)
        #expect(data.lastSeen == 1_700_000_042)
        #expect(data.values == ["theme": "\"dark\""])
        // Written again, it is the current version, and reads back the same.
        #expect(SessionCodec.encode(data).first == 2)
        #expect(SessionCodec.decode(SessionCodec.encode(data)) == data)
        // A time no millisecond count can hold is garbage, not a crash.
        #expect(SessionCodec.decode(versionOne(id: "abc", created: .max / 100, lastSeen: 0, values: [])) == nil)
        #expect(SessionCodec.decode(Array(bytes.dropLast())) == nil)
    }

    @Test func aCookieSealedBeforeMillisecondsStillOpensAndARevocationLaterInItsSecondEndsIt() async throws {
        let secret = String(repeating: "k", count: 32)
        let clock = TestClock(Date(timeIntervalSince1970: 1_700_000_000.6))
        let app = isolatedApp {
            $0.clock = { clock.now }
            $0.sessions.secret = secret
        }
        app.get("/theme") { request in request.session["theme"] ?? "none" }
        let bytes = versionOne(id: "abc", created: 1_700_000_000, lastSeen: 1_700_000_000, values: [("theme", "\"dark\"")])
        let cookie = try CookieSessionStore(secret: secret).seal(bytes)
        let client = TestClient(app)
        client.setCookie("micro.session", cookie)
        #expect(try await client.get("/theme").text == "dark")
        // Everyone's revocation half a second into that second may have come after the session
        // began: it ends it.
        app.settings.sessions.revocations.revokeAll(at: 1_700_000_000_500)
        let replay = TestClient(app)
        replay.setCookie("micro.session", cookie)
        #expect(try await replay.get("/theme").text == "none")
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
