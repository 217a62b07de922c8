/// Decodes form fields or query parameters into a `Decodable` type, for
/// ``Request/decode(_:)``.
///
/// Strings as sent; numbers, `Decimal`, `Date` (see ``IsoDate``) and `URL` from their text;
/// `Bool` from a checkbox (`on`, `true`, `1`, `yes`; an unchecked box sends nothing, which is
/// false); enumerations by raw value; an optional is nil when its field is missing or empty;
/// lists from repeated names (`tags=a&tags=b`, `tags[]=a`) or numbered ones (`items[0][name]`);
/// nested types from `address[city]`. Fields the type does not name are ignored.
///
/// Every field at fault is reported, not just the first: when a field fails, decoding starts
/// again with a stand-in value for it, so the next pass reaches the fields after it. A
/// `try?` in a type's own `init(from:)` still sees the failure, as the stand-in is used only
/// for a failure that ended decoding.
struct FormValueDecoder: Decoder {
    /// What the passes share: the fields that get a stand-in.
    final class State {
        var standIns: Set<String> = []
    }

    /// The most fields reported (and passes made) for one decoding.
    static let maxProblems = 50

    let node: FormNode
    let codingPath: [any CodingKey]
    /// The field's name as the form writes it: `address[city]`.
    let field: String
    let state: State

    var userInfo: [CodingUserInfoKey: Any] { [:] }

    /// `T` from `pairs`, or a 400 ``FormError`` naming each field that does not decode.
    static func decode<T: Decodable>(
        _ type: T.Type, from pairs: [(name: String, value: String)], source: FormError.Source
    ) throws(FormError) -> T {
        let root = FormValueDecoder(node: FormNode(pairs), codingPath: [], field: "", state: State())
        var problems = FieldErrors()
        while true {
            do {
                let value = try root.decodeValue(T.self)
                if problems.isEmpty { return value }
                break
            } catch let problem as FormFieldProblem {
                problems.add(problem.field, problem.message)
                // The same field again: it has no stand-in, and the passes end.
                guard !root.state.standIns.contains(problem.field), problems.all.count < maxProblems else { break }
                root.state.standIns.insert(problem.field)
            } catch {
                problems.add(root.field, "\(error)")
                break
            }
        }
        // A problem with no field (a type that refused the whole input) is the error's reason.
        var fields = FieldErrors()
        for (field, messages) in problems.all where !field.isEmpty {
            for message in messages { fields.add(field, message) }
        }
        var error = FormError(fields, values: pairs, status: .badRequest, source: source)
        error.reason = problems.message(for: "")
        throw error
    }

    /// The decoder of the field `key` below this one (an empty field when it was not sent).
    func child(_ key: any CodingKey) -> FormValueDecoder {
        let name = field.isEmpty ? key.stringValue : field + "[" + key.stringValue + "]"
        return FormValueDecoder(node: node.child(key.stringValue) ?? FormNode(), codingPath: codingPath + [key], field: name, state: state)
    }

    /// The decoder of the `index`th element of a list: a repeated value keeps the list's name.
    func element(_ index: Int, key: String?, node: FormNode) -> FormValueDecoder {
        let name = key.map { field + "[" + $0 + "]" } ?? field
        return FormValueDecoder(node: node, codingPath: codingPath + [ListIndex(index)], field: name, state: state)
    }

    /// The most nested a value may be decoded. Sent names nest at most ``FormNode/maxDepth``
    /// deep, but a field that was not sent is decoded from an empty field, as deep as its type
    /// goes: a class holding itself would go on for ever.
    static let maxCodingDepth = 4 * FormNode.maxDepth

    /// `T` from this field: a single value read from its text, else `T`'s own decoding.
    func decodeValue<T: Decodable>(_ type: T.Type) throws -> T {
        guard codingPath.count <= Self.maxCodingDepth else {
            throw FormFieldProblem(field: field, message: "Nested too deeply.")
        }
        if state.standIns.contains(field), let standIn = FormScalar.placeholder(T.self) { return standIn }
        if let value = try FormScalar.parse(T.self, node, field: field) { return value }
        do {
            return try T(from: self)
        } catch let problem as FormFieldProblem {
            throw problem
        } catch let error as DecodingError {
            throw problem(for: error, decoding: T.self)
        }
    }

    /// A `DecodingError` that `T`'s own decoding threw (an enumeration given none of its raw
    /// values, say), as a message about its field.
    private func problem<T>(for error: DecodingError, decoding type: T.Type) -> FormFieldProblem {
        let context: DecodingError.Context
        switch error {
        case .typeMismatch(_, let found), .valueNotFound(_, let found), .keyNotFound(_, let found), .dataCorrupted(let found):
            context = found
        @unknown default:
            return FormFieldProblem(field: field, message: "\(error)")
        }
        if context.codingPath.count == codingPath.count, let message = FormScalar.notAChoice(T.self) {
            return FormFieldProblem(field: field, message: node.isBlank ? FormScalar.required : message)
        }
        // Thrown deeper, by a type's own `init(from:)`: its path names the field.
        var name = field
        for key in context.codingPath.dropFirst(codingPath.count) where !(key is ListIndex) {
            name = name.isEmpty ? key.stringValue : name + "[" + key.stringValue + "]"
        }
        return FormFieldProblem(field: name, message: context.debugDescription)
    }

    func container<Key: CodingKey>(keyedBy type: Key.Type) throws -> KeyedDecodingContainer<Key> {
        KeyedDecodingContainer(FormKeyedContainer<Key>(decoder: self))
    }

    func unkeyedContainer() throws -> any UnkeyedDecodingContainer {
        FormUnkeyedContainer(decoder: self)
    }

    func singleValueContainer() throws -> any SingleValueDecodingContainer {
        FormSingleValueContainer(decoder: self)
    }

    /// The coding key of a list's element.
    struct ListIndex: CodingKey {
        var intValue: Int?
        var stringValue: String { intValue.map(String.init) ?? "" }
        init(_ index: Int) { intValue = index }
        init?(intValue: Int) { self.intValue = intValue }
        init?(stringValue: String) { nil }
    }
}
