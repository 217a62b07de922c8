#if canImport(_FoundationICU)
import MicroCore
import _FoundationICU
#endif

/// Names that look alike: Unicode's UTS #39 skeletons (through the ICU that Foundation
/// carries on Linux), so that `аdmin` with a Cyrillic `а` is seen to look like `admin`.
public enum UsernameConfusables {
    /// The first of `names` that `name` could be mistaken for (the same skeleton), other
    /// than `name` itself; nil when none, or where ICU's confusables are not available.
    ///
    /// ```swift
    /// UsernameConfusables.lookalike(of: "\u{430}dmin", among: ["admin", "kate"])  // "admin"
    /// ```
    public static func lookalike(of name: String, among names: [String]) -> String? {
        #if canImport(_FoundationICU)
        var status = U_ZERO_ERROR
        guard let checker = swift_uspoof_open(&status), status.rawValue <= U_ZERO_ERROR.rawValue else { return nil }
        defer { swift_uspoof_close(checker) }
        guard let own = skeleton(name, checker) else { return nil }
        return names.first { $0 != name && skeleton($0, checker) == own }
        #else
        return nil
        #endif
    }

    /// UTS #39's skeleton of `text`: two texts that look alike have the same one. Nil when it
    /// cannot be computed.
    public static func skeleton(_ text: String) -> String? {
        #if canImport(_FoundationICU)
        var status = U_ZERO_ERROR
        guard let checker = swift_uspoof_open(&status), status.rawValue <= U_ZERO_ERROR.rawValue else { return nil }
        defer { swift_uspoof_close(checker) }
        return skeleton(text, checker)
        #else
        return nil
        #endif
    }

    #if canImport(_FoundationICU)
    private static func skeleton(_ text: String, _ checker: OpaquePointer) -> String? {
        let source = Array(text.utf16)
        // A code point's skeleton is a few code units at most; ICU says how many when it needs more.
        var capacity = source.count * 4 + 16
        while true {
            var output = [UInt16](repeating: 0, count: capacity)
            var status = U_ZERO_ERROR
            let length = swift_uspoof_getSkeleton(checker, 0, source, Int32(source.count), &output, Int32(capacity), &status)
            if status == U_BUFFER_OVERFLOW_ERROR, Int(length) > capacity {
                capacity = Int(length)
                continue
            }
            guard status.rawValue <= U_ZERO_ERROR.rawValue else { return nil }
            return String(decoding: output.prefix(Int(length)), as: UTF16.self)
        }
    }
    #endif
}
