@testable import MicroCore
import MicroTestSupport
import NIOCore
import Testing


/// The byte-wise form decoder against a plain reference (the decoder as it was, splitting by
/// Unicode scalar), on many random inputs, and its limits counted exactly.
@Suite struct FormDecodingTests {
    // MARK: The reference

    /// The decoding as it was before it went by bytes, written plainly: the bytes as text
    /// (invalid UTF-8 as U+FFFD), split at each `&` and the first `=` of a field, names and
    /// values percent-decoded with `+` as a space into valid UTF-8, empty names left out; nil
    /// where that decoder threw its 400. It split by `Character` then; this splits by Unicode
    /// scalar, as the byte-wise decoder (and a browser) does (see
    /// ``anAmpersandBeforeACombiningMarkSplitsTheFields()``).
    static func reference(_ bytes: [UInt8]) -> [(name: String, value: String)]? {
        let text = String(decoding: bytes, as: UTF8.self)
        var pairs: [(name: String, value: String)] = []
        for field in text.unicodeScalars.split(separator: "&", omittingEmptySubsequences: true) {
            let equals = field.firstIndex(of: "=")
            let rawName = equals.map { field[..<$0] } ?? field
            let rawValue = equals.map { field[field.index(after: $0)...] } ?? field[field.endIndex...]
            guard let name = percentDecode(String(rawName)), let value = percentDecode(String(rawValue)) else { return nil }
            if name.isEmpty { continue }
            pairs.append((name, value))
        }
        return pairs
    }

    static func percentDecode(_ text: String) -> String? {
        func hex(_ byte: UInt8) -> UInt8? {
            switch byte {
            case UInt8(ascii: "0")...UInt8(ascii: "9"): byte - UInt8(ascii: "0")
            case UInt8(ascii: "a")...UInt8(ascii: "f"): byte - UInt8(ascii: "a") + 10
            case UInt8(ascii: "A")...UInt8(ascii: "F"): byte - UInt8(ascii: "A") + 10
            default: nil
            }
        }
        var decoded: [UInt8] = []
        var rest = Array(text.utf8)[...]
        while let byte = rest.popFirst() {
            switch byte {
            case UInt8(ascii: "+"):
                decoded.append(UInt8(ascii: " "))
            case UInt8(ascii: "%"):
                guard rest.count >= 2, let high = hex(rest.removeFirst()), let low = hex(rest.removeFirst()) else { return nil }
                decoded.append(high << 4 | low)
            default:
                decoded.append(byte)
            }
        }
        return String(validating: decoded, as: UTF8.self)
    }

    // MARK: Random inputs

    /// Pieces the inputs are made of: separators, escapes good and bad, UTF-8 good and bad,
    /// combining marks and a prepend character next to separators.
    static let pieces: [[UInt8]] = [
        "a", "b", "Z", "0", "9", "f", "F", "&", "&", "&", "=", "=", "%", "%", "+", " ", "%41", "%2B", "%26", "%3D",
        "%C3%A9", "%C3", "%A9", "%ff", "%zz", "%4", "%+4", "é", "€", "\u{301}", "\u{600}", "\r\n", "\u{0}",
    ].map { Array($0.utf8) } + [[0xC3], [0xA9], [0xFF], [0x80], [0xE2, 0x82], [0xED, 0xA0, 0x80]]

    static func randomInput(_ generator: inout SeededGenerator, maxPieces: Int) -> [UInt8] {
        let count = Int.random(in: 0...maxPieces, using: &generator)
        var bytes: [UInt8] = []
        for _ in 0..<count { bytes += pieces.randomElement(using: &generator)! }
        return bytes
    }

    static func decode(_ bytes: [UInt8], _ limits: FormLimits = .none) -> Result<[(name: String, value: String)], HttpError> {
        bytes.withUnsafeBufferPointer { buffer in Result { () throws(HttpError) in try FormDecoding.urlEncoded(buffer, limits: limits) } }
    }

    static func same(_ a: [(name: String, value: String)], _ b: [(name: String, value: String)]) -> Bool {
        a.map(\.name) == b.map(\.name) && a.map(\.value) == b.map(\.value)
    }

    @Test func decodesAsTheReferenceOnRandomInputs() {
        var generator = SeededGenerator(state: 0x4D69_6372_6F46_6F72)
        var refused = 0
        for round in 0..<30_000 {
            // Mostly short inputs; some long ones, whose fields are long enough for `memchr`.
            let input = Self.randomInput(&generator, maxPieces: round % 20 == 0 ? 400 : 24)
            let expected = Self.reference(input)
            switch Self.decode(input) {
            case .success(let pairs):
                #expect(expected.map { Self.same($0, pairs) } == true, "\(input): \(pairs) but the reference says \(String(describing: expected))")
            case .failure(let error):
                refused += 1
                #expect(error.status == .badRequest)
                #expect(expected == nil, "\(input): refused (\(error)) but the reference says \(expected!)")
            }
        }
        // Both outcomes were tried often.
        #expect((3_000...27_000).contains(refused), "\(refused) of 30000 refused")
    }

    @Test func theLimitsAreCountedExactlyOnRandomInputs() {
        var generator = SeededGenerator(state: 0x4C69_6D69_7473)
        var checked = 0
        for _ in 0..<30_000 {
            let input = Self.randomInput(&generator, maxPieces: 20)
            guard let expected = Self.reference(input) else { continue }
            // Fields: the non-empty pieces between `&`s; memory: the kept names and values.
            let fields = input.split(separator: UInt8(ascii: "&")).count
            let memory = expected.reduce(0) { $0 + $1.name.utf8.count + $1.value.utf8.count }
            let exact = FormLimits(fields: fields, memory: memory, source: .body)
            guard case .success(let pairs) = Self.decode(input, exact) else {
                Issue.record("\(input): refused at its exact limits (\(fields) fields, \(memory) bytes)")
                continue
            }
            #expect(Self.same(pairs, expected))
            if fields > 0 {
                let fewer = FormLimits(fields: fields - 1, memory: .max, source: .body)
                #expect(throws: HttpError.self) { try Self.decode(input, fewer).get() }
                if case .failure(let error) = Self.decode(input, fewer) {
                    #expect(error.status == .payloadTooLarge && error.message.contains("more than \(fields - 1) fields"))
                }
            }
            if memory > 0 {
                let less = FormLimits(fields: .max, memory: memory - 1, source: .body)
                if case .failure(let error) = Self.decode(input, less) {
                    #expect(error.status == .payloadTooLarge && error.message.contains("more than \(memory - 1) bytes"))
                } else {
                    Issue.record("\(input): accepted with \(memory - 1) bytes for \(memory)")
                }
            }
            checked += 1
        }
        #expect(checked > 5_000, "\(checked) inputs checked")
    }

    // MARK: Cases

    @Test func decodesNamesAndValues() throws {
        let pairs = try Self.decode(Array("a=1&b=x+y&c&=skipped&&d=%C3%A9%2B&e=".utf8)).get()
        #expect(pairs.map(\.name) == ["a", "b", "c", "d", "e"])
        #expect(pairs.map(\.value) == ["1", "x y", "", "é+", ""])
    }

    @Test func anAmpersandBeforeACombiningMarkSplitsTheFields() throws {
        // `&` or `=` and a combining mark after it are one `Character`, which the decoder once
        // split by; bytes are what a form's encoding separates (a browser writes the mark after
        // the separator as it is, or escaped).
        let pairs = try Self.decode(Array("a=1&\u{301}b=2&c=\u{301}".utf8)).get()
        #expect(pairs.map(\.name) == ["a", "\u{301}b", "c"])
        #expect(pairs.map(\.value) == ["1", "2", "\u{301}"])
    }

    @Test func invalidUtf8OutsideEscapesReadsAsReplacementCharacters() throws {
        // As when the whole body was decoded as text first: a raw byte is replaced before an
        // escape next to it is decoded, so the two never join into one character.
        let pairs = try Self.decode([UInt8(ascii: "a"), UInt8(ascii: "="), 0xFF, 0xC3] + Array("&b=%C3%A9".utf8)).get()
        #expect(pairs.map(\.value) == ["\u{FFFD}\u{FFFD}", "é"])
        #expect(throws: HttpError.self) { try Self.decode([UInt8(ascii: "a"), UInt8(ascii: "="), 0xC3] + Array("%A9".utf8)).get() }
        #expect(throws: HttpError.self) { try Self.decode(Array("a=%C3".utf8)).get() }
    }

    @Test func aBodyInAByteBufferDecodesAsItsBytes() throws {
        var buffer = ByteBuffer(string: "ignored&")
        buffer.moveReaderIndex(forwardBy: 8)
        buffer.writeString("x=1&y=%20")
        let pairs = try FormDecoding.urlEncoded(buffer, limits: .none)
        #expect(pairs.map(\.name) == ["x", "y"])
        #expect(pairs.map(\.value) == ["1", " "])
    }
}
