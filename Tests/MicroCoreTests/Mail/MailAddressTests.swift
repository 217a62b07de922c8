@testable import MicroCore
import Testing

@Suite struct MailAddressTests {
    @Test(arguments: ["ann@example.com", "Ann.Lee+tools@mail.example.co.uk", "o'brien@example.org", "root@localhost", "  ann@example.com  "])
    func anAddressOfTheUsualFormIsTaken(_ text: String) throws {
        let address = try MailAddress(text)
        #expect(address.text == text.trimmingSpaces())
    }

    @Test(arguments: [
        "", "ann", "ann@", "@example.com", "ann@@example.com", "ann@bob@example.com", "ann@example", "ann@-example.com",
        "ann@example-.com", "ann@exa_mple.com", "ann..lee@example.com", ".ann@example.com", "ann.@example.com",
        "ann lee@example.com", "\"ann\"@example.com", "<ann@example.com>", "ann@example.com\r\nBcc: eve@example.com",
        "ann@example.com\n", "ann\u{0}@example.com", "ann\u{7F}@example.com", "anné@example.com", "ann@exämple.com",
        "ann\u{202E}@example.com", "ann@[127.0.0.1]",
    ])
    func anythingElseIsRefusedWithAReason(_ text: String) {
        #expect(throws: MailAddressError.self) { try MailAddress(text) }
    }

    @Test func aControlCharacterIsNamed() {
        #expect(throws: MailAddressError("an email address cannot hold a control character (U+000D)")) { try MailAddress("ann@example.com\rX") }
    }

    @Test func lengthsAreBounded() throws {
        let local = String(repeating: "a", count: 64)
        _ = try MailAddress("\(local)@example.com")
        #expect(throws: MailAddressError.self) { try MailAddress("a\(local)@example.com") }
        let label = String(repeating: "b", count: 63)
        #expect(throws: MailAddressError.self) { try MailAddress("ann@\(label).\(label).\(label).\(label).com") }
    }

    @Test func twoSpellingsOfOneAddressAreEqual() throws {
        let first = try MailAddress("Ann@Example.COM"), second = try MailAddress("ann@example.com")
        #expect(first == second)
        #expect(Set([first, second]).count == 1)
        #expect(first.key == "ann@example.com")
        #expect(first.text == "Ann@Example.COM")
        #expect(first.domain == "Example.COM")
    }
}
