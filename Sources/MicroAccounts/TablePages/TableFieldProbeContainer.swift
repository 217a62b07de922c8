/// The keyed container of ``TableFieldProbe``: every property the row's `init(from:)` asks for
/// is noted, optional when asked with `decodeIfPresent`.
struct TableFieldProbeContainer<Key: CodingKey>: KeyedDecodingContainerProtocol {
    let probe: TableFieldProbe
    var codingPath: [any CodingKey] { probe.codingPath }
    var allKeys: [Key] { [] }

    func contains(_ key: Key) -> Bool { true }
    func decodeNil(forKey key: Key) throws -> Bool { false }

    func decode<T: Decodable>(_ type: T.Type, forKey key: Key) throws -> T { try probe.note(type, key, optional: false) }
    func decodeIfPresent<T: Decodable>(_ type: T.Type, forKey key: Key) throws -> T? { try probe.note(type, key, optional: true) }

    func decode(_ type: Bool.Type, forKey key: Key) throws -> Bool { try probe.note(type, key, optional: false) }
    func decode(_ type: String.Type, forKey key: Key) throws -> String { try probe.note(type, key, optional: false) }
    func decode(_ type: Double.Type, forKey key: Key) throws -> Double { try probe.note(type, key, optional: false) }
    func decode(_ type: Float.Type, forKey key: Key) throws -> Float { try probe.note(type, key, optional: false) }
    func decode(_ type: Int.Type, forKey key: Key) throws -> Int { try probe.note(type, key, optional: false) }
    func decode(_ type: Int8.Type, forKey key: Key) throws -> Int8 { try probe.note(type, key, optional: false) }
    func decode(_ type: Int16.Type, forKey key: Key) throws -> Int16 { try probe.note(type, key, optional: false) }
    func decode(_ type: Int32.Type, forKey key: Key) throws -> Int32 { try probe.note(type, key, optional: false) }
    func decode(_ type: Int64.Type, forKey key: Key) throws -> Int64 { try probe.note(type, key, optional: false) }
    func decode(_ type: UInt.Type, forKey key: Key) throws -> UInt { try probe.note(type, key, optional: false) }
    func decode(_ type: UInt8.Type, forKey key: Key) throws -> UInt8 { try probe.note(type, key, optional: false) }
    func decode(_ type: UInt16.Type, forKey key: Key) throws -> UInt16 { try probe.note(type, key, optional: false) }
    func decode(_ type: UInt32.Type, forKey key: Key) throws -> UInt32 { try probe.note(type, key, optional: false) }
    func decode(_ type: UInt64.Type, forKey key: Key) throws -> UInt64 { try probe.note(type, key, optional: false) }

    func decodeIfPresent(_ type: Bool.Type, forKey key: Key) throws -> Bool? { try probe.note(type, key, optional: true) }
    func decodeIfPresent(_ type: String.Type, forKey key: Key) throws -> String? { try probe.note(type, key, optional: true) }
    func decodeIfPresent(_ type: Double.Type, forKey key: Key) throws -> Double? { try probe.note(type, key, optional: true) }
    func decodeIfPresent(_ type: Float.Type, forKey key: Key) throws -> Float? { try probe.note(type, key, optional: true) }
    func decodeIfPresent(_ type: Int.Type, forKey key: Key) throws -> Int? { try probe.note(type, key, optional: true) }
    func decodeIfPresent(_ type: Int8.Type, forKey key: Key) throws -> Int8? { try probe.note(type, key, optional: true) }
    func decodeIfPresent(_ type: Int16.Type, forKey key: Key) throws -> Int16? { try probe.note(type, key, optional: true) }
    func decodeIfPresent(_ type: Int32.Type, forKey key: Key) throws -> Int32? { try probe.note(type, key, optional: true) }
    func decodeIfPresent(_ type: Int64.Type, forKey key: Key) throws -> Int64? { try probe.note(type, key, optional: true) }
    func decodeIfPresent(_ type: UInt.Type, forKey key: Key) throws -> UInt? { try probe.note(type, key, optional: true) }
    func decodeIfPresent(_ type: UInt8.Type, forKey key: Key) throws -> UInt8? { try probe.note(type, key, optional: true) }
    func decodeIfPresent(_ type: UInt16.Type, forKey key: Key) throws -> UInt16? { try probe.note(type, key, optional: true) }
    func decodeIfPresent(_ type: UInt32.Type, forKey key: Key) throws -> UInt32? { try probe.note(type, key, optional: true) }
    func decodeIfPresent(_ type: UInt64.Type, forKey key: Key) throws -> UInt64? { try probe.note(type, key, optional: true) }

    func nestedContainer<NestedKey: CodingKey>(keyedBy type: NestedKey.Type, forKey key: Key) throws -> KeyedDecodingContainer<NestedKey> {
        throw refusal(key)
    }
    func nestedUnkeyedContainer(forKey key: Key) throws -> any UnkeyedDecodingContainer { throw refusal(key) }
    func superDecoder() throws -> any Decoder { throw probe.refusal("a superclass") }
    func superDecoder(forKey key: Key) throws -> any Decoder { throw refusal(key) }

    private func refusal(_ key: Key) -> DecodingError {
        var inner = probe
        inner.codingPath.append(key)
        return inner.refusal("nested values")
    }
}
