import CYaml
import MicroCore

/// A YAML document as a tree of nodes, each with the line it starts on. Read with libyaml.
indirect enum YamlNode {
    case scalar(String, line: Int)
    case mapping([(key: YamlNode, value: YamlNode)], line: Int)
    case sequence([YamlNode], line: Int)

    var line: Int {
        switch self {
        case .scalar(_, let line), .mapping(_, let line), .sequence(_, let line): line
        }
    }

    var text: String? {
        if case .scalar(let text, _) = self { return text }
        return nil
    }

    /// The value under the scalar key `key` of a mapping.
    subscript(key: String) -> YamlNode? {
        guard case .mapping(let pairs, _) = self else { return nil }
        return pairs.last { $0.key.text == key }?.value
    }

    /// Parses the first document of `text`; nil for an empty one. Throws with the line of a
    /// syntax error.
    static func parse(_ text: String) throws(YamlError) -> YamlNode? {
        var parser = yaml_parser_t()
        guard yaml_parser_initialize(&parser) == 1 else { throw YamlError(line: 0, message: "libyaml could not start") }
        defer { yaml_parser_delete(&parser) }
        let bytes = Array(text.utf8)
        var document = yaml_document_t()
        let loaded = bytes.withUnsafeBufferPointer { buffer -> Int32 in
            yaml_parser_set_input_string(&parser, buffer.baseAddress, buffer.count)
            return yaml_parser_load(&parser, &document)
        }
        guard loaded == 1 else {
            let problem = parser.problem.map { String(cString: $0) } ?? "malformed YAML"
            let context = parser.context.map { " " + String(cString: $0) } ?? ""
            // An unclosed construct is reported at the end of the file; where it began says more.
            let mark = parser.context == nil ? parser.problem_mark : parser.context_mark
            throw YamlError(line: Int(mark.line) + 1, message: problem + context)
        }
        defer { yaml_document_delete(&document) }
        guard let root = yaml_document_get_root_node(&document) else { return nil }
        var budget = 100_000  // aliases can make a small file a huge tree
        return try node(root, in: &document, depth: 0, budget: &budget)
    }

    private static func node(
        _ pointer: UnsafeMutablePointer<yaml_node_t>, in document: inout yaml_document_t, depth: Int, budget: inout Int
    ) throws(YamlError) -> YamlNode {
        let line = Int(pointer.pointee.start_mark.line) + 1
        budget -= 1
        guard depth < 64, budget > 0 else { throw YamlError(line: line, message: "the document is nested too deeply or too large") }
        switch pointer.pointee.type {
        case YAML_SCALAR_NODE:
            let scalar = pointer.pointee.data.scalar
            let text = String(decoding: UnsafeBufferPointer(start: scalar.value, count: scalar.length), as: UTF8.self)
            return .scalar(text, line: line)
        case YAML_MAPPING_NODE:
            var pairs: [(key: YamlNode, value: YamlNode)] = []
            var pair = pointer.pointee.data.mapping.pairs.start
            while let current = pair, current != pointer.pointee.data.mapping.pairs.top {
                guard let key = yaml_document_get_node(&document, current.pointee.key),
                    let value = yaml_document_get_node(&document, current.pointee.value)
                else { throw YamlError(line: line, message: "a mapping refers to a missing node") }
                pairs.append((try node(key, in: &document, depth: depth + 1, budget: &budget), try node(value, in: &document, depth: depth + 1, budget: &budget)))
                pair = current + 1
            }
            return .mapping(pairs, line: line)
        case YAML_SEQUENCE_NODE:
            var items: [YamlNode] = []
            var item = pointer.pointee.data.sequence.items.start
            while let current = item, current != pointer.pointee.data.sequence.items.top {
                guard let child = yaml_document_get_node(&document, current.pointee) else {
                    throw YamlError(line: line, message: "a sequence refers to a missing node")
                }
                items.append(try node(child, in: &document, depth: depth + 1, budget: &budget))
                item = current + 1
            }
            return .sequence(items, line: line)
        default:
            return .scalar("", line: line)
        }
    }
}

/// A YAML syntax error and its line (1-based).
struct YamlError: Error {
    var line: Int
    var message: String
}
