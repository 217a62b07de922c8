import MicroCore

/// What a list asks (RFC 7644 3.4.2, 3.4.3): the query string of a `GET`, or the body of a
/// `POST .search`, as text; each endpoint reads the parts it takes.
struct ScimQuery: Sendable {
    var filter: String?
    var startIndex: String?
    var count: String?
    var attributes: String?
    var excludedAttributes: String?

    /// The query string of `request`.
    init(_ request: Request) {
        func last(_ name: String) -> String? {
            request.params.query.last { $0.name.lowercased() == name.lowercased() }?.value
        }
        filter = last("filter")
        startIndex = last("startIndex")
        count = last("count")
        attributes = last("attributes")
        excludedAttributes = last("excludedAttributes")
    }

    /// The body of a `.search`; throws the refusal of one that is not a search request.
    init(search body: ScimJson) throws(ScimError) {
        guard case .object = body else { throw .invalidSyntax("A search is a JSON object.") }
        func text(_ name: String) throws(ScimError) -> String? {
            switch body[name] {
            case nil, .null?: return nil
            case .string(let value)?: return value
            case .int(let value)?: return String(value)
            case .array(let list)?:
                let names = list.compactMap(\.string)
                guard names.count == list.count else { throw .invalidValue("\(name) is a list of attribute names.") }
                return names.joined(separator: ",")
            default: throw .invalidValue("\(name) has the wrong type.")
            }
        }
        filter = try text("filter")
        startIndex = try text("startIndex")
        count = try text("count")
        attributes = try text("attributes")
        excludedAttributes = try text("excludedAttributes")
    }

    /// What the client asked to see.
    var projection: ScimProjection { ScimProjection(attributes: attributes, excludedAttributes: excludedAttributes) }

    /// The filter, if any.
    func parsedFilter() throws(ScimError) -> ScimFilter? {
        guard let filter, !filter.trimmingSpaces().isEmpty else { return nil }
        return try ScimFilter(filter)
    }

    /// `startIndex` (from 1) and `count` (at most `maxCount`).
    func page(maxCount: Int) throws(ScimError) -> (start: Int, count: Int) {
        func number(_ text: String?, _ name: String) throws(ScimError) -> Int? {
            guard let text else { return nil }
            guard text.utf8.count <= 12, let value = Int(text) else { throw .invalidValue("\(name) is a whole number.") }
            return value
        }
        let start = max(1, try number(startIndex, "startIndex") ?? 1)
        let count = min(maxCount, max(0, try number(self.count, "count") ?? maxCount))
        return (start, count)
    }
}
