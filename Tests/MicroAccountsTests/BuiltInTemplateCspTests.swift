import Foundation
import Micro
import MicroAccounts
import MicroAuth
import MicroTwoFactor
import Testing

/// The built-in pages show under Micro's default Content-Security-Policy (`script-src 'self'`,
/// no inline style): none of their templates holds an inline script, an event handler attribute
/// or a style attribute, which the browser would block (a set-up link's `onfocus` did).
@Suite struct BuiltInTemplateCspTests {
    private let templates: [String: String] = [
        "account/index": AccountTemplates.index, "account/password": AccountTemplates.password,
        "account/sessions": AccountTemplates.sessions, "account/activity": AccountTemplates.activity,
        "admin/audit": AccountTemplates.audit, "admin/users": UsersTemplates.users, "admin/events": AppEventTemplates.page,
        "account/setup": SetupLinkTemplates.setup, "admin/setup-link": SetupLinkTemplates.made,
        "account/forgot": SetupLinkTemplates.forgot, "account/forgot-sent": SetupLinkTemplates.forgotSent,
        "signin": AuthenticationTemplates.signIn, "signout": AuthenticationTemplates.signOut,
        "two-factor/sign-in": TwoFactorTemplates.signIn, "two-factor/status": TwoFactorTemplates.status,
        "two-factor/setup": TwoFactorTemplates.setup, "two-factor/recovery-codes": TwoFactorTemplates.recoveryCodes,
    ]

    @Test func noBuiltInTemplateHoldsWhatTheDefaultPolicyBlocks() throws {
        let handler = try NSRegularExpression(pattern: #"\son[a-z]+\s*="#, options: [.caseInsensitive])
        // A script of the app's own (`<script src=... defer>`) is allowed; one without `src` is inline.
        let inlineScript = try NSRegularExpression(pattern: #"<script(?![^>]*\ssrc=)[^>]*>"#, options: [.caseInsensitive])
        for (name, text) in templates {
            let range = NSRange(text.startIndex..., in: text)
            #expect(handler.firstMatch(in: text, range: range) == nil, "\(name) has an event handler attribute")
            #expect(inlineScript.firstMatch(in: text, range: range) == nil, "\(name) has an inline script")
            #expect(!text.lowercased().contains(" style="), "\(name) has a style attribute")
            #expect(!text.lowercased().contains("javascript:"), "\(name) has a javascript: URL")
        }
    }
}
