import Foundation
import MicroCore

/// Learns a row type's fields by decoding one: its `init(from:)` asks for each property by
/// name and type, and the probe notes them, answering a placeholder value. A property of
/// another type than ``TableField/Kind`` names (a nested type, a list) is an error naming it.
struct TableFieldProbe: Decoder {
    /// The fields noted, in the order the type asked for them.
    final class Notes: @unchecked Sendable {
        var fields: [TableField] = []
        var problem: String?
    }

    let notes: Notes
    var codingPath: [any CodingKey] = []
    var userInfo: [CodingUserInfoKey: Any] = [:]

    /// The fields of `Row`, or the problem with them.
    static func fields<Row: Decodable>(of type: Row.Type) -> Result<[TableField], TableFieldProblem> {
        let notes = Notes()
        do {
            _ = try Row(from: TableFieldProbe(notes: notes))
        } catch {
            return .failure(TableFieldProblem(message: notes.problem ?? "\(Row.self) cannot be read as a table's row: \(error)"))
        }
        if let problem = notes.problem { return .failure(TableFieldProblem(message: problem)) }
        guard !notes.fields.isEmpty else { return .failure(TableFieldProblem(message: "\(Row.self) has no fields a table page can show.")) }
        return .success(notes.fields)
    }

    func container<Key: CodingKey>(keyedBy type: Key.Type) throws -> KeyedDecodingContainer<Key> {
        guard codingPath.isEmpty else { throw refusal("nested types") }
        return KeyedDecodingContainer(TableFieldProbeContainer<Key>(probe: self))
    }

    func unkeyedContainer() throws -> any UnkeyedDecodingContainer { throw refusal("lists") }

    func singleValueContainer() throws -> any SingleValueDecodingContainer { throw refusal("a single value") }

    /// The error for a row that is not a set of plain fields.
    func refusal(_ what: String) -> DecodingError {
        let field = codingPath.last.map { " (field '\($0.stringValue)')" } ?? ""
        notes.problem = notes.problem ?? "A table page's row holds plain fields (text, numbers, yes/no, dates, a String enumeration), not \(what)\(field)."
        return DecodingError.dataCorrupted(DecodingError.Context(codingPath: codingPath, debugDescription: notes.problem!))
    }

    /// Notes the field `key` of `type` and gives a placeholder for it.
    func note<T>(_ type: T.Type, _ key: any CodingKey, optional: Bool) throws -> T {
        let (kind, placeholder) = try Self.kind(of: type, key: key, probe: self)
        notes.fields.append(TableField(name: key.stringValue, kind: kind, isOptional: optional))
        return placeholder as! T
    }

    private static func kind<T>(of type: T.Type, key: any CodingKey, probe: TableFieldProbe) throws -> (TableField.Kind, Any) {
        switch type {
        case is String.Type: return (.text, "")
        case is Bool.Type: return (.bool, false)
        case is Double.Type: return (.decimal, 0.0)
        case is Float.Type: return (.decimal, Float(0))
        case is Date.Type: return (.date, Date(timeIntervalSince1970: 0))
        case is Int.Type: return (.integer, 0)
        case is Int64.Type: return (.integer, Int64(0))
        case is Int32.Type: return (.integer, Int32(0))
        case is Int16.Type: return (.integer, Int16(0))
        case is Int8.Type: return (.integer, Int8(0))
        case is UInt.Type: return (.integer, UInt(0))
        case is UInt64.Type: return (.integer, UInt64(0))
        case is UInt32.Type: return (.integer, UInt32(0))
        case is UInt16.Type: return (.integer, UInt16(0))
        case is UInt8.Type: return (.integer, UInt8(0))
        default:
            if let choices = type as? any CaseIterable.Type, let (values, first) = Self.cases(of: choices) { return (.choice(values), first) }
            var inner = probe
            inner.codingPath.append(key)
            throw inner.refusal("\(type)")
        }
    }

    /// The raw values of a `String` enumeration's cases, and its first case.
    private static func cases<C: CaseIterable>(of type: C.Type) -> ([String], Any)? {
        let values = type.allCases.compactMap { ($0 as? any RawRepresentable)?.rawValue as? String }
        guard let first = type.allCases.first, values.count == type.allCases.count else { return nil }
        return (values, first)
    }
}

/// Why a row type cannot have table pages.
struct TableFieldProblem: Error, CustomStringConvertible {
    let message: String
    var description: String { message }
}
