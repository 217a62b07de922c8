/// The bytes of a ``SessionData`` inside the encrypted cookie: a compact binary form, read and
/// written in a microsecond (JSON took twenty on every request with a session).
///
/// Layout: version 2, the id, created (milliseconds) and lastSeen (seconds) as Int64,
/// big-endian, the number of values, then each key and value. Strings are a UInt32 length and
/// UTF-8 bytes. Version 1, the same with created in seconds, is still read.
enum SessionCodec {
    private static let version: UInt8 = 2
    /// Cookies sealed before sessions were timed to the millisecond.
    private static let secondsVersion: UInt8 = 1
    /// More than any cookie can carry: a decoded length beyond it is garbage.
    private static let limit = 1 << 16

    static func encode(_ data: SessionData) -> [UInt8] {
        var bytes: [UInt8] = [version]
        bytes.reserveCapacity(64 + data.values.reduce(0) { $0 + $1.key.utf8.count + $1.value.utf8.count + 8 })
        append(data.id, to: &bytes)
        append(data.createdMilliseconds, to: &bytes)
        append(data.lastSeen, to: &bytes)
        append(UInt32(data.values.count), to: &bytes)
        for (key, value) in data.values.sorted(by: { $0.key < $1.key }) {
            append(key, to: &bytes)
            append(value, to: &bytes)
        }
        return bytes
    }

    /// Nil for anything ``encode(_:)`` (or the version before it) did not make.
    static func decode(_ bytes: [UInt8]) -> SessionData? {
        var reader = Reader(bytes: bytes)
        let format = reader.byte()
        guard format == version || format == secondsVersion, let id = reader.string(), let created = reader.int64(),
            let lastSeen = reader.int64(), let count = reader.uint32(), Int(count) <= limit
        else { return nil }
        // A version 1 cookie tells only the second its session began in: taken as the second's
        // start, so that a revocation later in that second, which may have come after it, ends it.
        let (createdMilliseconds, overflow) = format == version ? (created, false) : created.multipliedReportingOverflow(by: 1000)
        guard !overflow else { return nil }
        var data = SessionData(id: id, createdMilliseconds: createdMilliseconds, lastSeen: lastSeen)
        for _ in 0..<count {
            guard let key = reader.string(), let value = reader.string() else { return nil }
            data.values[key] = value
        }
        return reader.atEnd ? data : nil
    }

    private static func append(_ string: String, to bytes: inout [UInt8]) {
        append(UInt32(string.utf8.count), to: &bytes)
        bytes.append(contentsOf: string.utf8)
    }

    private static func append(_ value: Int64, to bytes: inout [UInt8]) {
        withUnsafeBytes(of: value.bigEndian) { bytes.append(contentsOf: $0) }
    }

    private static func append(_ value: UInt32, to bytes: inout [UInt8]) {
        withUnsafeBytes(of: value.bigEndian) { bytes.append(contentsOf: $0) }
    }

    private struct Reader {
        let bytes: [UInt8]
        var position = 0

        var atEnd: Bool { position == bytes.count }

        mutating func byte() -> UInt8? {
            guard position < bytes.count else { return nil }
            defer { position += 1 }
            return bytes[position]
        }

        mutating func uint32() -> UInt32? {
            guard bytes.count - position >= 4 else { return nil }
            defer { position += 4 }
            return bytes[position..<position + 4].reduce(0) { $0 << 8 | UInt32($1) }
        }

        mutating func int64() -> Int64? {
            guard bytes.count - position >= 8 else { return nil }
            defer { position += 8 }
            return Int64(bitPattern: bytes[position..<position + 8].reduce(0) { $0 << 8 | UInt64($1) })
        }

        mutating func string() -> String? {
            guard let length = uint32(), Int(length) <= SessionCodec.limit, bytes.count - position >= Int(length) else { return nil }
            defer { position += Int(length) }
            return String(validating: bytes[position..<position + Int(length)], as: UTF8.self)
        }
    }
}
