/// One operation of a PATCH body (RFC 7644 3.5.2): `add`, `replace` or `remove`, with a `path`
/// or without one (then the value is an object of attributes). The op's name is read in any
/// case, as Entra sends `Replace`.
struct ScimPatchOperation: Sendable {
    enum Kind: Sendable, Equatable { case add, replace, remove }

    /// A path cut into its parts: `emails[type eq "work"].value` is `emails`, the filter
    /// `type eq "work"` and `value`; the attribute in lowercase, with the core schema's URN
    /// taken off.
    struct Path: Sendable, Equatable {
        let attribute: String
        let filter: String?
        let subAttribute: String?
    }

    static let schema = "urn:ietf:params:scim:api:messages:2.0:PatchOp"
    /// The most operations one request makes.
    static let maxOperations = 100

    let kind: Kind
    let path: Path?
    let value: ScimJson?

    /// The operations of a PATCH body; throws the refusal of a body that is not one.
    static func operations(in body: ScimJson) throws(ScimError) -> [ScimPatchOperation] {
        guard let list = body["Operations"]?.array else { throw .invalidSyntax("A PATCH body has an \"Operations\" list.") }
        guard list.count <= maxOperations else { throw .invalidValue("A PATCH makes at most \(maxOperations) operations.") }
        var operations: [ScimPatchOperation] = []
        for item in list {
            guard let name = item["op"]?.string else { throw .invalidSyntax("Each operation has an \"op\".") }
            let kind: Kind
            switch name.lowercased() {
            case "add": kind = .add
            case "replace": kind = .replace
            case "remove": kind = .remove
            default: throw .invalidSyntax("An op is add, replace or remove.")
            }
            let path = try item["path"].flatMap { (value: ScimJson) throws(ScimError) -> Path? in
                guard !value.isNull else { return nil }
                guard let text = value.string else { throw .invalidPath("A path is a string.") }
                return try parse(path: text)
            }
            let value = item["value"]
            if kind == .remove, path == nil { throw .noTarget("A remove names its target with a path.") }
            if kind != .remove, value == nil { throw .invalidSyntax("An \(name) operation has a value.") }
            operations.append(ScimPatchOperation(kind: kind, path: path, value: value))
        }
        return operations
    }

    /// The parts of `text`; throws `invalidPath` for one that is not an attribute path.
    static func parse(path text: String) throws(ScimError) -> Path {
        guard text.utf8.count <= 512, !text.isEmpty else { throw .invalidPath("A path is 1 to 512 bytes.") }
        var rest = Substring(text)
        for urn in [ScimUser.schema + ":", ScimGroup.schema + ":"] where rest.lowercased().hasPrefix(urn.lowercased()) {
            rest = rest.dropFirst(urn.count)
        }
        var filter: String?
        var sub: Substring?
        var attribute = rest
        if let open = rest.firstIndex(of: "[") {
            guard let close = rest.lastIndex(of: "]"), close > open else { throw .invalidPath("A path's filter ends with ']'.") }
            attribute = rest[..<open]
            filter = String(rest[rest.index(after: open)..<close])
            let after = rest[rest.index(after: close)...]
            if !after.isEmpty {
                guard after.first == "." else { throw .invalidPath("After a path's filter comes '.' and an attribute.") }
                sub = after.dropFirst()
            }
        } else if !attribute.lowercased().hasPrefix("urn:"), let dot = attribute.firstIndex(of: ".") {
            sub = attribute[attribute.index(after: dot)...]
            attribute = attribute[..<dot]
        }
        let valid: (Substring) -> Bool = { part in
            !part.isEmpty && part.utf8.allSatisfy { (0x30...0x39).contains($0) || (0x41...0x5A).contains($0) || (0x61...0x7A).contains($0) || $0 == 0x2D || $0 == 0x5F || $0 == 0x24 || $0 == 0x3A || $0 == 0x2E }
        }
        guard valid(attribute), sub.map(valid) ?? true else { throw .invalidPath("The path \(text.debugDescription) is not an attribute path.") }
        return Path(attribute: attribute.lowercased(), filter: filter, subAttribute: sub.map { $0.lowercased() })
    }
}
