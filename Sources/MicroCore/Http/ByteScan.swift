#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

/// Scans of a string's UTF-8 bytes over its storage, for texts read on every request (a
/// session cookie is hundreds of bytes): going through `String.UTF8View`'s iterator costs
/// ten or more instructions a byte, `memchr` a fraction of one.
enum ByteScan {
    /// Whether `text` holds `byte`.
    static func contains(_ byte: UInt8, in text: String) -> Bool {
        let found = text.utf8.withContiguousStorageIfAvailable { buffer -> Bool in
            guard let base = buffer.baseAddress else { return false }
            return memchr(base, Int32(byte), buffer.count) != nil
        }
        return found ?? text.utf8.contains(byte)
    }

    /// Whether every byte of `text` is one that `table` (256 entries, by byte) marks `true`.
    static func allSatisfy(_ text: String, in table: [Bool]) -> Bool {
        precondition(table.count == 256, "a table has an entry for each of the 256 bytes")
        return table.withUnsafeBufferPointer { table in
            let found = text.utf8.withContiguousStorageIfAvailable { buffer -> Bool in
                for byte in buffer where !table[Int(byte)] { return false }
                return true
            }
            return found ?? text.utf8.allSatisfy { table[Int($0)] }
        }
    }
}
