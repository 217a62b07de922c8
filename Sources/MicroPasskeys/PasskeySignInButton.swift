import MicroAuth
import MicroCore

/// A passkey's button on the sign-in pages: a form the page's script runs (the browser's
/// dialog, then the answer posted), shown only where a passkey can sign in.
enum PasskeySignInButton {
    /// "Sign in with a passkey" on the sign-in page, which also offers passkeys in the username
    /// field's autofill; nil without passkeys, or where a browser would refuse one
    /// (``PasskeyRelyingParty``).
    static func signIn(_ request: Request, _ service: PasskeyService) -> String? {
        guard service.store(offeredFor: request) != nil, service.relyingParty(for: request) != nil else { return nil }
        return form(request, path: service.settings.signInPath, label: service.settings.signInLabel, autofill: true)
    }

    /// "Use a passkey instead" on the second step's page.
    static func secondStep(_ request: Request, _ service: PasskeyService) -> String {
        form(request, path: service.settings.secondStepPath, label: service.settings.secondStepLabel, autofill: false)
    }

    private static func form(_ request: Request, path: String, label: String, autofill: Bool) -> String {
        """
        <form id="passkey-\(autofill ? "sign-in" : "second-step")" method="post" action="\(Html.escape(request.url(path)))" \
        data-passkey="get"\(autofill ? " data-autofill" : "") data-options="\(Html.escape(request.url(path + "/options")))">
          <input type="hidden" name="_csrf" value="\(Html.escape(request.csrfToken))">
          <p><button type="submit">\(Html.escape(label))</button></p>
          <p class="field-error" data-passkey-error role="alert" hidden></p>
        </form>
        """
    }
}
