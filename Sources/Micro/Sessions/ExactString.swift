/// A string that equals another only when their UTF-8 bytes are the same, for keys that
/// identify something: Swift's `String` compares by canonical equivalence ("\u{212A}" KELVIN
/// SIGN equals "K", a precomposed "å" equals "a" and a combining ring), so two usernames a
/// store keeps apart would be one key.
struct ExactString: Hashable, Sendable {
    let text: String

    init(_ text: String) { self.text = text }

    static func == (lhs: ExactString, rhs: ExactString) -> Bool {
        lhs.text.utf8.elementsEqual(rhs.text.utf8)
    }

    func hash(into hasher: inout Hasher) {
        var text = text
        text.withUTF8 { hasher.combine(bytes: UnsafeRawBufferPointer($0)) }
    }
}
