/// The elements of a list: the values of a repeated name, then its numbered children.
struct FormUnkeyedContainer: UnkeyedDecodingContainer {
    let decoder: FormValueDecoder
    private let elements: [(key: String?, node: FormNode)]
    private(set) var currentIndex = 0

    init(decoder: FormValueDecoder) {
        self.decoder = decoder
        elements = decoder.node.elements
    }

    var codingPath: [any CodingKey] { decoder.codingPath }
    var count: Int? { elements.count }
    var isAtEnd: Bool { currentIndex >= elements.count }

    /// An empty element is nil to an optional.
    mutating func decodeNil() throws -> Bool {
        guard !isAtEnd, elements[currentIndex].node.isBlank else { return false }
        currentIndex += 1
        return true
    }

    mutating func decode<T: Decodable>(_ type: T.Type) throws -> T { try decodeNext(type) }

    mutating func decode(_ type: Bool.Type) throws -> Bool { try decodeNext(type) }
    mutating func decode(_ type: String.Type) throws -> String { try decodeNext(type) }
    mutating func decode(_ type: Double.Type) throws -> Double { try decodeNext(type) }
    mutating func decode(_ type: Float.Type) throws -> Float { try decodeNext(type) }
    mutating func decode(_ type: Int.Type) throws -> Int { try decodeNext(type) }
    mutating func decode(_ type: Int8.Type) throws -> Int8 { try decodeNext(type) }
    mutating func decode(_ type: Int16.Type) throws -> Int16 { try decodeNext(type) }
    mutating func decode(_ type: Int32.Type) throws -> Int32 { try decodeNext(type) }
    mutating func decode(_ type: Int64.Type) throws -> Int64 { try decodeNext(type) }
    mutating func decode(_ type: UInt.Type) throws -> UInt { try decodeNext(type) }
    mutating func decode(_ type: UInt8.Type) throws -> UInt8 { try decodeNext(type) }
    mutating func decode(_ type: UInt16.Type) throws -> UInt16 { try decodeNext(type) }
    mutating func decode(_ type: UInt32.Type) throws -> UInt32 { try decodeNext(type) }
    mutating func decode(_ type: UInt64.Type) throws -> UInt64 { try decodeNext(type) }

    mutating func nestedContainer<NestedKey: CodingKey>(keyedBy type: NestedKey.Type) throws -> KeyedDecodingContainer<NestedKey> {
        let container = try next().container(keyedBy: type)
        currentIndex += 1
        return container
    }

    mutating func nestedUnkeyedContainer() throws -> any UnkeyedDecodingContainer {
        let container = try next().unkeyedContainer()
        currentIndex += 1
        return container
    }

    mutating func superDecoder() throws -> any Decoder {
        let decoder = try next()
        currentIndex += 1
        return decoder
    }

    private mutating func decodeNext<T: Decodable>(_ type: T.Type) throws -> T {
        let value = try next().decodeValue(type)
        currentIndex += 1
        return value
    }

    private func next() throws(FormFieldProblem) -> FormValueDecoder {
        guard !isAtEnd else { throw FormFieldProblem(field: decoder.field, message: "Too few values.") }
        let element = elements[currentIndex]
        return decoder.element(currentIndex, key: element.key, node: element.node)
    }
}
