/// Form fields as a tree of names, for ``FormValueDecoder``: `address[city]=Oslo` is the
/// child `city` of `address`; `tags=a&tags=b` and `tags[]=a&tags[]=b` are both the values
/// `["a", "b"]` of `tags`.
///
/// A name that is not of that shape (`a[b`, `[a]`, `a[]b`, `a[][b]`) or nests deeper than
/// ``maxDepth`` is one plain name, kept as sent: no field of a Swift type matches it, so it
/// is ignored like any unknown field. The tree is as large as the fields, which the form
/// limits bound.
final class FormNode {
    /// The most keys a name may have (`a[b][c]` has three); a deeper name is a plain name.
    static let maxDepth = 16

    /// The values sent under this exact name, in order.
    private(set) var values: [String] = []
    /// The children's keys, in the order they were first sent.
    private(set) var keys: [String] = []
    private var children: [String: FormNode] = [:]

    init() {}

    /// The tree of `pairs`.
    init(_ pairs: [(name: String, value: String)]) {
        for (name, value) in pairs {
            var node = self
            for key in Self.path(of: name) { node = node.child(creating: key) }
            node.values.append(value)
        }
    }

    /// The child `key`; `tags[]` reads as `tags`.
    func child(_ key: String) -> FormNode? {
        if let child = children[key] { return child }
        guard key.utf8.count > 2, key.utf8.suffix(2).elementsEqual("[]".utf8) else { return nil }
        return children[String(decoding: key.utf8.dropLast(2), as: UTF8.self)]
    }

    /// The value a single value reads: the last one sent, as `params[name]` does.
    var lastValue: String? { values.last }

    /// Whether nothing was sent here but empty values: an optional reads nil.
    var isBlank: Bool { children.isEmpty && values.allSatisfy(\.isEmpty) }

    /// The elements of a list: each value sent under this name, then the children (by number
    /// when every key is a number, `items[0]`, `items[1]`, else in the order they came).
    var elements: [(key: String?, node: FormNode)] {
        var elements: [(key: String?, node: FormNode)] = values.map { value in
            let leaf = FormNode()
            leaf.values = [value]
            return (nil, leaf)
        }
        var ordered = keys
        let numbers = keys.compactMap { Int($0) }
        if numbers.count == keys.count {
            ordered = zip(numbers, keys).sorted { $0.0 < $1.0 }.map(\.1)
        }
        elements += ordered.compactMap { key in children[key].map { (key, $0) } }
        return elements
    }

    private func child(creating key: String) -> FormNode {
        if let child = children[key] { return child }
        let child = FormNode()
        children[key] = child
        keys.append(key)
        return child
    }

    /// The keys of a field name: `a` is `["a"]`, `a[b][c]` is `["a", "b", "c"]`, `a[]` is
    /// `["a"]` (`[]` only at the end); any other name is itself, whole.
    static func path(of name: String) -> [String] {
        let bytes = Array(name.utf8)
        guard let open = bytes.firstIndex(of: UInt8(ascii: "[")), open > 0, bytes.last == UInt8(ascii: "]") else {
            return [name]
        }
        // Cut at ASCII brackets only, so every piece of valid UTF-8 is valid UTF-8.
        var keys = [String(decoding: bytes[..<open], as: UTF8.self)]
        var index = open
        while index < bytes.count {
            guard bytes[index] == UInt8(ascii: "["),
                let close = bytes[(index + 1)...].firstIndex(where: { $0 == UInt8(ascii: "]") || $0 == UInt8(ascii: "[") }),
                bytes[close] == UInt8(ascii: "]")
            else { return [name] }
            if close == index + 1 {
                // `[]`: a list, only as the last part.
                guard close == bytes.count - 1 else { return [name] }
                break
            }
            keys.append(String(decoding: bytes[(index + 1)..<close], as: UTF8.self))
            guard keys.count <= maxDepth else { return [name] }
            index = close + 1
        }
        return keys
    }
}
