/// The tags of a template that look a value up outside every section: `{{name}}`,
/// `{{{name}}}`, `{{&name}}` and dotted names, each with its line, and the partials it shows
/// there. Such a lookup can only be answered by the page's own values (the route's, the
/// plugins', Micro's), so a name none of them has is a mistake: development and test say so
/// (``Views``). Sections are left alone: a missing value is how Mustache says "false".
/// Inside a section a name may belong to the section's value, which only rendering knows.
struct TopLevelTags: Sendable {
    /// A variable tag: the name's parts (`user.name` is `user`, `name`) and its line.
    struct Variable: Sendable, Equatable {
        let path: [String]
        let line: Int
    }

    /// The variable tags outside every section, in order.
    private(set) var variables: [Variable] = []
    /// The partials shown outside every section.
    private(set) var partials: [String] = []

    /// The tags of `text`. A template that sets other delimiters is read up to there only.
    init(_ text: String) {
        let bytes = Array(text.utf8)
        var index = 0
        var line = 1
        var depth = 0
        while index + 1 < bytes.count {
            if bytes[index] == 0x0A { line += 1 }
            guard bytes[index] == 0x7B, bytes[index + 1] == 0x7B else {
                index += 1
                continue
            }
            let tripled = index + 2 < bytes.count && bytes[index + 2] == 0x7B
            let start = index + (tripled ? 3 : 2)
            guard let end = Self.find(tripled ? [0x7D, 0x7D, 0x7D] : [0x7D, 0x7D], in: bytes, from: start) else { return }
            let tagLine = line
            line += bytes[start..<end].count { $0 == 0x0A }
            index = end + (tripled ? 3 : 2)
            var content = Substring(String(decoding: bytes[start..<end], as: UTF8.self)).trimmingSpaces
            let sigil = tripled ? nil : content.first
            switch sigil {
            case "#", "^", "$", "<":
                depth += 1
                continue
            case "/":
                depth = max(0, depth - 1)
                continue
            case "!", "%":
                continue
            case "=":
                return
            case ">":
                if depth == 0 { partials.append(String(content.dropFirst().trimmingSpaces)) }
                continue
            case "&":
                content = content.dropFirst().trimmingSpaces
            default:
                break
            }
            guard depth == 0, let path = Self.path(of: content) else { continue }
            variables.append(Variable(path: path, line: tagLine))
        }
    }

    /// The name a variable tag looks up: `name`, `a.b`, or the innermost of a transform
    /// (`uppercased(name)`); nil for `.` and for what is no name.
    private static func path(of content: Substring) -> [String]? {
        var name = content
        while let open = name.firstIndex(of: "("), let close = name.lastIndex(of: ")"), open < close {
            name = name[name.index(after: open)..<close].trimmingSpaces
        }
        guard !name.isEmpty, name != ".", !name.contains(where: { $0 == " " || $0 == "(" || $0 == ")" }) else { return nil }
        let parts = name.split(separator: ".", omittingEmptySubsequences: false).map(String.init)
        return parts.contains(where: \.isEmpty) ? nil : parts
    }

    private static func find(_ closing: [UInt8], in bytes: [UInt8], from start: Int) -> Int? {
        var index = start
        while index + closing.count <= bytes.count {
            if bytes[index..<index + closing.count].elementsEqual(closing) { return index }
            index += 1
        }
        return nil
    }
}

extension Substring {
    fileprivate var trimmingSpaces: Substring {
        var text = self
        while let first = text.first, first == " " || first == "\n" || first == "\t" || first == "\r" { text = text.dropFirst() }
        while let last = text.last, last == " " || last == "\n" || last == "\t" || last == "\r" { text = text.dropLast() }
        return text
    }
}
