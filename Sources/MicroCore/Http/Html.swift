/// HTML escaping for text placed in pages.
public enum Html {
    /// `text` with `& < > " '` escaped, safe inside elements and quoted attributes.
    ///
    /// It works on UTF-8 bytes: each of these five bytes becomes its entity wherever it
    /// stands, even where a combining mark after it or a prepend character before it joins it
    /// into one Character with its neighbours (an escaper comparing Characters lets `"` +
    /// U+0301 through). Every other byte is copied as it is.
    public static func escape(_ text: String) -> String {
        // Native strings (small ones too) lend their UTF-8 as it is; a bridged one is copied.
        if let result = text.utf8.withContiguousStorageIfAvailable({ escaped($0) }) {
            return result ?? text
        }
        var copy = text
        return copy.withUTF8 { escaped($0) } ?? text
    }

    /// The five bytes, as bits of one word (each is below 64).
    private static let specialBytes: UInt64 = 1 << 38 | 1 << 60 | 1 << 62 | 1 << 34 | 1 << 39

    @inline(__always)
    private static func isSpecial(_ byte: UInt8) -> Bool {
        byte < 64 && specialBytes & (1 << UInt64(byte)) != 0
    }

    /// The escaped text of `bytes`, or nil when nothing needs escaping.
    private static func escaped(_ bytes: UnsafeBufferPointer<UInt8>) -> String? {
        // First pass: how much longer the text gets.
        var extra = 0
        for byte in bytes where isSpecial(byte) {
            extra += entity(byte).utf8CodeUnitCount - 1
        }
        guard extra > 0, let source = bytes.baseAddress else { return nil }
        // Second pass: copy the runs between special bytes, and an entity for each.
        return String(unsafeUninitializedCapacity: bytes.count + extra) { out in
            guard let target = out.baseAddress else { return 0 }
            var written = 0
            var runStart = 0
            for index in 0..<bytes.count where isSpecial(bytes[index]) {
                let run = index - runStart
                (target + written).initialize(from: source + runStart, count: run)
                written += run
                let replacement = entity(bytes[index])
                (target + written).initialize(from: replacement.utf8Start, count: replacement.utf8CodeUnitCount)
                written += replacement.utf8CodeUnitCount
                runStart = index + 1
            }
            let tail = bytes.count - runStart
            (target + written).initialize(from: source + runStart, count: tail)
            return written + tail
        }
    }

    @inline(__always)
    private static func entity(_ byte: UInt8) -> StaticString {
        switch byte {
        case UInt8(ascii: "&"): "&amp;"
        case UInt8(ascii: "<"): "&lt;"
        case UInt8(ascii: ">"): "&gt;"
        case UInt8(ascii: "\""): "&quot;"
        default: "&#39;"
        }
    }
}
