import Foundation
import MicroAuth
import MicroCore
import MicroTestSupport
import Testing

/// RFC 8265's UsernameCaseMapped profile, as ``Username/enforce(_:)`` applies it.
@Suite struct UsernameTests {
    @Test(arguments: [
        ("ÉMILE", "émile"), ("émile", "émile"), ("e\u{301}mile", "émile"), ("Emile", "emile"),
        ("ＫＡＴＥ", "kate"), ("ｶﾞ", "ガ"), ("ΟΔΟΣ", "οδος"), ("ẞ", "ß"), ("İ", "i\u{307}"),
        ("user.name-1_x@example.org", "user.name-1_x@example.org"), ("日本語", "日本語"), ("שלום1", "שלום1"),
    ])
    func namesBecomeTheirEnforcedForm(_ name: String, _ enforced: String) throws {
        let result = try Username.enforce(name)
        #expect(Array(result.unicodeScalars) == Array(enforced.unicodeScalars))
        // Enforcing again changes nothing: a store's names are their own enforced form.
        #expect(try Username.enforce(result) == result)
        #expect(Username.isEnforced(result))
    }

    @Test func oneNameHowEverItIsWritten() throws {
        let spellings = ["ÉMILE", "émile", "e\u{301}mile", "E\u{301}MILE", "Émile"]
        #expect(Set(try spellings.map { Array(try Username.enforce($0).utf8) }).count == 1)
    }

    @Test(arguments: [
        ("", "a username cannot be empty"),
        ("\u{212A}ate", "U+212A KELVIN SIGN, a compatibility form of 'K'"),
        ("\u{212B}ngstrom", "U+212B ANGSTROM SIGN"),
        ("bob ", "holds a space (U+0020 SPACE)"),
        (" bob", "holds a space"),
        ("ann smith", "holds a space"),
        ("a\u{A0}b", "holds a space (U+00A0 NO-BREAK SPACE)"),
        ("a\u{3000}b", "holds a space (U+3000 IDEOGRAPHIC SPACE)"),
        ("a:b", "holds ':', which HTTP Basic authentication cannot send"),
        ("\u{1B}[31mred", "'\\u{1B}[31mred' holds the control character U+001B"),
        ("a\u{0}b", "the control character U+0000"),
        ("tab\t", "the control character U+0009"),
        ("del\u{7F}", "the control character U+007F"),
        ("line\u{85}", "the control character U+0085"),
        ("a\u{200B}b", "U+200B ZERO WIDTH SPACE, which is invisible"),
        ("a\u{200D}b", "U+200D ZERO WIDTH JOINER, which is invisible"),
        ("ad\u{202E}nim", "U+202E RIGHT-TO-LEFT OVERRIDE, which is invisible"),
        ("a\u{AD}b", "U+00AD SOFT HYPHEN, which is invisible"),
        ("\u{378}x", "U+0378, which Unicode has not assigned"),
        ("snow☃", "U+2603 SNOWMAN, which is not a letter, a digit or ASCII punctuation"),
        ("a\u{E000}", "U+E000, which is not a letter"),
        ("x\u{B7}y", "U+00B7 MIDDLE DOT"),
        ("\u{2163}", "U+2163 ROMAN NUMERAL FOUR"),
        ("\u{FB01}le", "U+FB01 LATIN SMALL LIGATURE FI"),
        ("abcשלום", "RFC 5893's Bidi rule"),
    ])
    func namesOutsideTheProfileAreRefusedSayingWhy(_ name: String, _ reason: String) {
        do {
            let enforced = try Username.enforce(name)
            Issue.record("'\(Username.shown(name))' was accepted as '\(enforced)'")
        } catch {
            #expect(error.description.contains(reason), "\(error)")
        }
    }

    @Test func anEnforcedNameIsItsOwnEnforcedFormWhateverTheInput() {
        // Random text from the ranges names are made of and those they must not hold.
        var generator = SeededGenerator(state: 0x6D69_6372_6F)
        let ranges: [ClosedRange<UInt32>] = [0x0...0x7F, 0x80...0x24F, 0x300...0x3FF, 0x590...0x6FF, 0x1100...0x11FF,
                                            0x1E00...0x1FFF, 0x2000...0x2BFF, 0x3000...0x30FF, 0xAC00...0xAC80, 0xFF00...0xFFEF, 0x1D400...0x1D7FF]
        var accepted = 0
        for _ in 0..<3000 {
            var text = String.UnicodeScalarView()
            for _ in 0..<Int.random(in: 1...6, using: &generator) {
                let range = ranges.randomElement(using: &generator)!
                if let scalar = Unicode.Scalar(UInt32.random(in: range, using: &generator)) { text.append(scalar) }
            }
            guard let enforced = try? Username.enforce(String(text)) else { continue }
            accepted += 1
            #expect(Array((try? Username.enforce(enforced))?.utf8 ?? "".utf8) == Array(enforced.utf8), "\(Username.shown(String(text)))")
        }
        #expect(accepted > 300)
    }

    @Test func theKelvinSignIsNotKate() {
        #expect(throws: UsernameError.self) { try Username.enforce("\u{212A}ATE") }
        #expect(Username.key("\u{212A}ate") != "kate")
        #expect(User(username: "\u{212A}ate").username != "kate")
    }

    @Test func refusedNamesAreShownWithoutWhatATerminalWouldActOn() {
        #expect(Username.shown("\u{1B}[2J\u{7}x") == "\\u{1B}[2J\\u{7}x")
        #expect(Username.shown("a\u{202E}b\u{200B}") == "a\\u{202E}b\\u{200B}")
        #expect(Username.shown("émile") == "émile")
        #expect(throws: UsernameError.empty) { try Username.enforce("") }
    }

    @Test func usersAndStampsUseTheEnforcedName() {
        #expect(User(username: "ÉMILE").username == "émile")
        #expect(User(username: "ＫＡＴＥ").username == "kate")
        #expect(CredentialStamp(username: "E\u{301}MILE", passwordHash: "h") == CredentialStamp(username: "émile", passwordHash: "h"))
    }

    @Test func confusableNamesHaveOneSkeleton() {
        #expect(UsernameConfusables.lookalike(of: "\u{430}dmin", among: ["kate", "admin"]) == "admin")
        #expect(UsernameConfusables.lookalike(of: "paypa\u{406}", among: ["paypal"]) == "paypal")
        #expect(UsernameConfusables.lookalike(of: "admin", among: ["admin", "kate"]) == nil)
        #expect(UsernameConfusables.lookalike(of: "anna", among: ["admin", "kate"]) == nil)
    }

    @Test func aTablesRowsArePlannedToTheirEnforcedNames() throws {
        let rows = [("1", "kate"), ("2", "ÉMILE"), ("3", "Bob")].map { UsernameMigration.Row(id: $0.0, username: $0.1) }
        #expect(try UsernameMigration.renames(of: rows) == [.init(id: "2", username: "émile"), .init(id: "3", username: "bob")])

        let collision = rows + [UsernameMigration.Row(id: "7", username: "e\u{301}mile")]
        #expect {
            try UsernameMigration.renames(of: collision)
        } throws: { error in
            "\(error)".contains("users rows 2 ('ÉMILE') and 7 ('émile') are one user, 'émile'")
        }
        #expect {
            try UsernameMigration.renames(of: rows + [.init(id: "9", username: "\u{1B}[31mx")])
        } throws: { error in
            "\(error)".contains("users row 9: the username '\\u{1B}[31mx' holds the control character U+001B")
        }
    }
}

