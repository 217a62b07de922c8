@testable import MicroAuth
import MicroCore
import MicroTesting
import Testing

/// NIST SP 800-63B's rules for a new password.
@Suite struct PasswordRulesTests {
    private let rules = PasswordRules()

    @Test func eachRuleIsNamed() {
        #expect(rules.problem(with: "seven77", username: "ann")?.contains("at least 8 characters") == true)
        #expect(rules.problem(with: String(repeating: "ü", count: 37), username: "ann")?.contains("at most 72 bytes") == true)
        #expect(rules.problem(with: "Ann-Smith", username: "ann-smith")?.contains("other than your username") == true)
        #expect(rules.problem(with: "Secret123", username: "ann")?.contains("published") == true)
        for common in ["password", "12345678", "qwertyuiop", "iloveyou", "password1", "letmein1", "PassWord1"] {
            #expect(rules.problem(with: common, username: "ann")?.contains("most commonly used") == true, "\(common)")
        }
    }

    @Test func aLongUncommonPasswordPassesWhateverItsCharacters() {
        for good in ["correct horse battery", "eight ch", "日本語のパスワードです", "e\u{0301}e\u{0301}e\u{0301}e\u{0301}e\u{0301}e\u{0301}e\u{0301}e\u{0301}"] {
            #expect(rules.problem(with: good, username: "ann") == nil, "\(good)")
        }
        // Characters, not bytes or scalars, are counted toward the minimum.
        #expect(rules.problem(with: "e\u{0301}e\u{0301}e\u{0301}e\u{0301}", username: "ann") != nil)
    }

    @Test func theListHoldsTenThousandPasswordsAndCanBeTurnedOff() {
        #expect(PasswordRules.common.count == 10_000)
        var relaxed = PasswordRules()
        relaxed.refusesCommonPasswords = false
        #expect(relaxed.problem(with: "password", username: "ann") == nil)
    }
}
