/// A look at the CBOR in authenticator data before libfido2 reads it: each item must be
/// well-formed and claim no more than the data holds.
///
/// libcbor (under libfido2) allocates a definite array's or map's storage from its declared
/// count before it reads a single item, so a few hostile bytes declaring a map of 2^60 pairs
/// would ask it for more memory than any machine has. An authenticator writes CTAP2's canonical
/// CBOR: definite lengths only, shallow, and never more items than bytes follow. This reads the
/// items' headers only, to refuse anything else; what the items mean stays libfido2's to read.
enum CborBounds {
    /// The deepest nesting taken; a COSE key and the extensions a browser asks for are two
    /// levels deep.
    static let depthLimit = 8

    /// Whether `bytes` is a sequence of well-formed CBOR items of definite length, nested at
    /// most ``depthLimit`` deep, each within what follows it.
    static func admits(_ bytes: ArraySlice<UInt8>) -> Bool {
        topLevelTypes(bytes) != nil
    }

    /// The major type (0 to 7; 5 is a map) of each item of the sequence `bytes`, in order; nil
    /// when ``admits(_:)`` would be false.
    static func topLevelTypes(_ bytes: ArraySlice<UInt8>) -> [UInt8]? {
        var rest = bytes
        var types: [UInt8] = []
        while let initial = rest.first {
            guard skipItem(&rest, depth: 0) else { return nil }
            types.append(initial >> 5)
        }
        return types
    }

    /// Moves `rest` past one item; false when the item is not one this admits.
    private static func skipItem(_ rest: inout ArraySlice<UInt8>, depth: Int) -> Bool {
        guard depth < depthLimit, let initial = rest.popFirst(), let argument = argument(initial & 0x1F, &rest) else { return false }
        switch initial >> 5 {
        case 2, 3:  // byte and text strings: their length in bytes
            guard argument <= UInt64(rest.count) else { return false }
            rest.removeFirst(Int(argument))
            return true
        case 4, 5:  // arrays and maps: each item, and each key and value, takes at least a byte
            let (items, overflow) = argument.multipliedReportingOverflow(by: initial >> 5 == 5 ? 2 : 1)
            guard !overflow, items <= UInt64(rest.count) else { return false }
            for _ in 0..<items {
                guard skipItem(&rest, depth: depth + 1) else { return false }
            }
            return true
        case 6:  // a tag, then the item it tags
            return skipItem(&rest, depth: depth + 1)
        default:  // integers, and simple values and floats: the argument was all of it
            return true
        }
    }

    /// The argument of an item whose initial byte ends in `info`, read from `rest`; nil for
    /// the reserved values and for indefinite lengths, which canonical CBOR does not use.
    private static func argument(_ info: UInt8, _ rest: inout ArraySlice<UInt8>) -> UInt64? {
        switch info {
        case 0..<24:
            return UInt64(info)
        case 24...27:
            let size = 1 << (info - 24)
            guard rest.count >= size else { return nil }
            defer { rest.removeFirst(size) }
            return rest.prefix(size).reduce(0) { $0 << 8 | UInt64($1) }
        default:
            return nil
        }
    }
}
