import Foundation
import MicroCore

/// A JSON value as a SCIM client sends it or Micro answers it: SCIM's attribute names are
/// case-insensitive and its resources open-ended, which a fixed `Codable` type cannot follow.
/// Objects Micro makes keep the order their members were written in, so that answers read as
/// the RFC's; decoded ones come in the decoder's order, which no rule here depends on.
enum ScimJson: Sendable, Codable {
    case null
    case bool(Bool)
    case int(Int)
    case number(Double)
    case string(String)
    case array([ScimJson])
    case object([(String, ScimJson)])

    /// The member `name` of an object, in any case (RFC 7643 2.1); nil for none or a non-object.
    subscript(name: String) -> ScimJson? {
        guard case .object(let members) = self else { return nil }
        let lowered = name.lowercased()
        return members.first { $0.0.lowercased() == lowered }?.1
    }

    /// The members of an object; none for anything else.
    var members: [(String, ScimJson)] {
        if case .object(let members) = self { return members }
        return []
    }

    /// The text of a string; nil for anything else.
    var string: String? {
        if case .string(let text) = self { return text }
        return nil
    }

    /// The elements of an array; nil for anything else.
    var array: [ScimJson]? {
        if case .array(let elements) = self { return elements }
        return nil
    }

    /// Whether the value is `null`.
    var isNull: Bool {
        if case .null = self { return true }
        return false
    }

    private struct Key: CodingKey {
        var stringValue: String
        var intValue: Int? { nil }
        init(stringValue: String) { self.stringValue = stringValue }
        init?(intValue: Int) { nil }
    }

    init(from decoder: any Decoder) throws {
        if let keyed = try? decoder.container(keyedBy: Key.self) {
            var members: [(String, ScimJson)] = []
            for key in keyed.allKeys { members.append((key.stringValue, try keyed.decode(ScimJson.self, forKey: key))) }
            self = .object(members)
            return
        }
        if var unkeyed = try? decoder.unkeyedContainer() {
            var elements: [ScimJson] = []
            while !unkeyed.isAtEnd { elements.append(try unkeyed.decode(ScimJson.self)) }
            self = .array(elements)
            return
        }
        let single = try decoder.singleValueContainer()
        if single.decodeNil() {
            self = .null
        } else if let value = try? single.decode(Bool.self) {
            self = .bool(value)
        } else if let value = try? single.decode(Int.self) {
            self = .int(value)
        } else if let value = try? single.decode(Double.self) {
            self = .number(value)
        } else {
            self = .string(try single.decode(String.self))
        }
    }

    func encode(to encoder: any Encoder) throws {
        switch self {
        case .null:
            var single = encoder.singleValueContainer()
            try single.encodeNil()
        case .bool(let value):
            var single = encoder.singleValueContainer()
            try single.encode(value)
        case .int(let value):
            var single = encoder.singleValueContainer()
            try single.encode(value)
        case .number(let value):
            var single = encoder.singleValueContainer()
            try single.encode(value)
        case .string(let value):
            var single = encoder.singleValueContainer()
            try single.encode(value)
        case .array(let elements):
            var unkeyed = encoder.unkeyedContainer()
            for element in elements { try unkeyed.encode(element) }
        case .object(let members):
            var keyed = encoder.container(keyedBy: Key.self)
            for (name, value) in members { try keyed.encode(value, forKey: Key(stringValue: name)) }
        }
    }

    /// The value of a request's body; nil when it is not JSON.
    static func parse(_ bytes: some Sequence<UInt8>) -> ScimJson? {
        try? JSONDecoder().decode(ScimJson.self, from: Data(bytes))
    }

    /// The value as the text of an answer.
    var text: String {
        let encoder = JSONEncoder()
        encoder.outputFormatting = [.withoutEscapingSlashes]
        return (try? String(decoding: encoder.encode(self), as: UTF8.self)) ?? "{}"
    }
}
