/// One field's value, for a type that decodes itself from a single value (an enumeration by
/// raw value, a wrapper around a string).
struct FormSingleValueContainer: SingleValueDecodingContainer {
    let decoder: FormValueDecoder

    var codingPath: [any CodingKey] { decoder.codingPath }

    /// A missing or empty field is nil to an optional.
    func decodeNil() -> Bool { decoder.node.isBlank }

    func decode<T: Decodable>(_ type: T.Type) throws -> T { try decoder.decodeValue(type) }
    func decode(_ type: Bool.Type) throws -> Bool { try decoder.decodeValue(type) }
    func decode(_ type: String.Type) throws -> String { try decoder.decodeValue(type) }
    func decode(_ type: Double.Type) throws -> Double { try decoder.decodeValue(type) }
    func decode(_ type: Float.Type) throws -> Float { try decoder.decodeValue(type) }
    func decode(_ type: Int.Type) throws -> Int { try decoder.decodeValue(type) }
    func decode(_ type: Int8.Type) throws -> Int8 { try decoder.decodeValue(type) }
    func decode(_ type: Int16.Type) throws -> Int16 { try decoder.decodeValue(type) }
    func decode(_ type: Int32.Type) throws -> Int32 { try decoder.decodeValue(type) }
    func decode(_ type: Int64.Type) throws -> Int64 { try decoder.decodeValue(type) }
    func decode(_ type: UInt.Type) throws -> UInt { try decoder.decodeValue(type) }
    func decode(_ type: UInt8.Type) throws -> UInt8 { try decoder.decodeValue(type) }
    func decode(_ type: UInt16.Type) throws -> UInt16 { try decoder.decodeValue(type) }
    func decode(_ type: UInt32.Type) throws -> UInt32 { try decoder.decodeValue(type) }
    func decode(_ type: UInt64.Type) throws -> UInt64 { try decoder.decodeValue(type) }
}
