import Foundation

/// The filters the list endpoints answer (RFC 7644 3.4.2.2): equality on an attribute, or
/// several joined by `and`. Each list looks one up by an index (a name, an address) and checks
/// the rest on what it found; anything else is refused as `invalidFilter` rather than answered
/// by reading every row.
struct ScimFilter: Sendable, Equatable {
    /// `attribute eq "value"`, the attribute in lowercase.
    struct Term: Sendable, Equatable {
        let attribute: String
        let value: String
    }

    /// The terms, all of which hold.
    let terms: [Term]

    /// The longest filter read, in UTF-8 bytes.
    static let maxLength = 1024
    /// The most terms joined by `and`.
    static let maxTerms = 4

    /// The value of the term on `attribute` (lowercase), if there is one.
    func value(of attribute: String) -> String? {
        terms.first { $0.attribute == attribute }?.value
    }

    /// The filter `text`; throws `invalidFilter` saying what is not supported.
    init(_ text: String) throws(ScimError) {
        guard text.utf8.count <= Self.maxLength else {
            throw .invalidFilter("A filter is at most \(Self.maxLength) bytes.")
        }
        var scanner = Scanner(Array(text.utf8))
        var terms: [Term] = []
        repeat {
            if !terms.isEmpty {
                guard scanner.word()?.lowercased() == "and" else {
                    throw .invalidFilter("Only equality (eq) on one attribute, or several joined by 'and', is supported.")
                }
            }
            guard let attribute = scanner.word(), attribute.utf8.allSatisfy(Self.isAttributeByte), !attribute.isEmpty else {
                throw .invalidFilter("A filter starts with an attribute: userName eq \"ann\".")
            }
            guard scanner.word()?.lowercased() == "eq" else {
                throw .invalidFilter("Only equality (eq) on one attribute, or several joined by 'and', is supported.")
            }
            guard let value = scanner.value() else {
                throw .invalidFilter("The value of a filter is a quoted string: userName eq \"ann\".")
            }
            try Self.check(value, of: attribute.lowercased())
            terms.append(Term(attribute: attribute.lowercased(), value: value))
            guard terms.count <= Self.maxTerms else { throw .invalidFilter("A filter joins at most \(Self.maxTerms) terms.") }
            scanner.skipSpaces()
        } while !scanner.isAtEnd
        self.terms = terms
    }

    /// Refuses a value no stored one can equal before it reaches a store: a control character
    /// (a NUL, which PostgreSQL refuses in text, would be a 503), or an `externalId` that
    /// ``ScimUser/externalId(_:)`` would not keep.
    private static func check(_ value: String, of attribute: String) throws(ScimError) {
        if attribute == "externalid" {
            do throws(ScimError) { _ = try ScimUser.externalId(.string(value)) } catch {
                throw .invalidFilter("An externalId is a text of 1 to 256 bytes, without control characters.")
            }
        } else if value.unicodeScalars.contains(where: { $0.properties.generalCategory == .control }) {
            throw .invalidFilter("A filter's value holds no control characters.")
        }
    }

    private static func isAttributeByte(_ byte: UInt8) -> Bool {
        (0x30...0x39).contains(byte) || (0x41...0x5A).contains(byte) || (0x61...0x7A).contains(byte) || byte == 0x2E || byte == 0x3A
            || byte == 0x5F || byte == 0x2D || byte == 0x24
    }

    /// Reads words and values out of a filter's bytes.
    private struct Scanner {
        let bytes: [UInt8]
        var index = 0

        init(_ bytes: [UInt8]) { self.bytes = bytes }

        var isAtEnd: Bool { index >= bytes.count }

        mutating func skipSpaces() {
            while index < bytes.count, bytes[index] == 0x20 { index += 1 }
        }

        /// The next run of bytes up to a space (or a quote, which only a value starts).
        mutating func word() -> String? {
            skipSpaces()
            let start = index
            while index < bytes.count, bytes[index] != 0x20, bytes[index] != 0x22 { index += 1 }
            guard index > start else { return nil }
            return String(decoding: bytes[start..<index], as: UTF8.self)
        }

        /// A JSON string (its escapes read as JSON reads them), or `true`/`false`/`null`-free
        /// literals as their text.
        mutating func value() -> String? {
            skipSpaces()
            guard index < bytes.count else { return nil }
            guard bytes[index] == 0x22 else {
                guard let literal = word()?.lowercased(), literal == "true" || literal == "false" else { return nil }
                return literal
            }
            let start = index
            index += 1
            while index < bytes.count, bytes[index] != 0x22 {
                index += bytes[index] == 0x5C ? 2 : 1
            }
            guard index < bytes.count else { return nil }
            index += 1
            return try? JSONDecoder().decode(String.self, from: Data(bytes[start..<index]))
        }
    }
}
