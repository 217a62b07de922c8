/// The fields under one name, by key: a struct's properties, or a dictionary's entries.
struct FormKeyedContainer<Key: CodingKey>: KeyedDecodingContainerProtocol {
    let decoder: FormValueDecoder

    var codingPath: [any CodingKey] { decoder.codingPath }
    var allKeys: [Key] { decoder.node.keys.compactMap { Key(stringValue: $0) } }

    func contains(_ key: Key) -> Bool { decoder.node.child(key.stringValue) != nil }

    /// A missing or empty field is nil to an optional.
    func decodeNil(forKey key: Key) throws -> Bool { decoder.node.child(key.stringValue)?.isBlank ?? true }

    func decode<T: Decodable>(_ type: T.Type, forKey key: Key) throws -> T { try decoder.child(key).decodeValue(T.self) }
    func decode(_ type: Bool.Type, forKey key: Key) throws -> Bool { try decoder.child(key).decodeValue(type) }
    func decode(_ type: String.Type, forKey key: Key) throws -> String { try decoder.child(key).decodeValue(type) }
    func decode(_ type: Double.Type, forKey key: Key) throws -> Double { try decoder.child(key).decodeValue(type) }
    func decode(_ type: Float.Type, forKey key: Key) throws -> Float { try decoder.child(key).decodeValue(type) }
    func decode(_ type: Int.Type, forKey key: Key) throws -> Int { try decoder.child(key).decodeValue(type) }
    func decode(_ type: Int8.Type, forKey key: Key) throws -> Int8 { try decoder.child(key).decodeValue(type) }
    func decode(_ type: Int16.Type, forKey key: Key) throws -> Int16 { try decoder.child(key).decodeValue(type) }
    func decode(_ type: Int32.Type, forKey key: Key) throws -> Int32 { try decoder.child(key).decodeValue(type) }
    func decode(_ type: Int64.Type, forKey key: Key) throws -> Int64 { try decoder.child(key).decodeValue(type) }
    func decode(_ type: UInt.Type, forKey key: Key) throws -> UInt { try decoder.child(key).decodeValue(type) }
    func decode(_ type: UInt8.Type, forKey key: Key) throws -> UInt8 { try decoder.child(key).decodeValue(type) }
    func decode(_ type: UInt16.Type, forKey key: Key) throws -> UInt16 { try decoder.child(key).decodeValue(type) }
    func decode(_ type: UInt32.Type, forKey key: Key) throws -> UInt32 { try decoder.child(key).decodeValue(type) }
    func decode(_ type: UInt64.Type, forKey key: Key) throws -> UInt64 { try decoder.child(key).decodeValue(type) }

    func nestedContainer<NestedKey: CodingKey>(keyedBy type: NestedKey.Type, forKey key: Key) throws -> KeyedDecodingContainer<NestedKey> {
        try decoder.child(key).container(keyedBy: type)
    }

    func nestedUnkeyedContainer(forKey key: Key) throws -> any UnkeyedDecodingContainer {
        try decoder.child(key).unkeyedContainer()
    }

    /// A class's superclass reads the same fields.
    func superDecoder() throws -> any Decoder { decoder }

    func superDecoder(forKey key: Key) throws -> any Decoder { decoder.child(key) }
}
