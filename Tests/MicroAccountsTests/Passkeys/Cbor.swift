/// The little of CBOR (RFC 8949) a COSE key needs: maps of integer labels to integers and byte
/// strings, in the order given.
enum Cbor {
    enum Value {
        case int(Int)
        case bytes([UInt8])
    }

    static func map(_ pairs: [(Int, Value)]) -> [UInt8] {
        var out = head(5, UInt64(pairs.count))
        for (label, value) in pairs {
            out += int(label)
            switch value {
            case .int(let number): out += int(number)
            case .bytes(let bytes): out += head(2, UInt64(bytes.count)) + bytes
            }
        }
        return out
    }

    static func int(_ number: Int) -> [UInt8] {
        number >= 0 ? head(0, UInt64(number)) : head(1, UInt64(-1 - number))
    }

    static func head(_ major: UInt8, _ value: UInt64) -> [UInt8] {
        let type = major << 5
        switch value {
        case 0..<24: return [type | UInt8(value)]
        case 24..<0x100: return [type | 24, UInt8(value)]
        case 0x100..<0x10000: return [type | 25, UInt8(value >> 8), UInt8(value & 0xFF)]
        default: return [type | 26] + (0..<4).reversed().map { UInt8(value >> (8 * UInt64($0)) & 0xFF) }
        }
    }
}
