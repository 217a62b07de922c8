import MicroAuth
import MicroCore

/// The second factor's built-in templates, rendered in the app's layout; an app restyles one
/// by writing its own of the same name in its views folder (`views/account/two-factor.mustache`).
public enum TwoFactorTemplates {
    /// `two-factor/sign-in`: `action`, on a refusal `form.errors.code`, and for a user with a
    /// passkey `passkeyStep` (`html`, the button that uses one instead, and its `script`).
    public static let signIn = """
        <h1>{{title}}</h1>
        <form method="post" action="{{action}}">
          {{{csrfField}}}
          <p><label for="code">The code from your authenticator app, or a recovery code</label><br>
          <input id="code" name="code" autocomplete="one-time-code" inputmode="text" maxlength="64" required autofocus
            {{#form.errors.code}}aria-invalid="true" aria-describedby="code-error"{{/form.errors.code}}>
          {{#form.errors.code}}<span class="field-error" id="code-error">{{.}}</span>{{/form.errors.code}}</p>
          <p><button type="submit">Sign in</button></p>
        </form>
        {{#passkeyStep}}
        {{{html}}}
        <script src="{{script}}" defer></script>
        {{/passkeyStep}}
        """

    /// `account/two-factor`: `on` (with `codesLeft`, `disableAction`, `recoveryCodesAction`),
    /// `off` (with `setupAction`, and `required` when the app needs it), or `unavailable` (the
    /// message); on a refusal `form.errors.current_password` or `form.errors.code`.
    public static let status = """
        <h1>{{title}}</h1>
        {{#unavailable}}<p class="read-only">{{unavailable}}</p>{{/unavailable}}
        {{#required}}<p class="notice">{{required}}</p>{{/required}}
        {{#on}}
        <p data-two-factor="on">Two-factor sign-in is <strong>on</strong>. Recovery codes left: <span data-recovery-codes-left>{{codesLeft}}</span>.</p>
        <form method="post" action="{{recoveryCodesAction}}">
          {{{csrfField}}}
          <p><label for="regenerate-code">A code from your app</label><br>
          <input id="regenerate-code" name="code" autocomplete="one-time-code" maxlength="64" required></p>
          <p><button type="submit">Make new recovery codes</button></p>
        </form>
        <form method="post" action="{{disableAction}}">
          {{{csrfField}}}
          <p><label for="current_password">Current password</label><br>
          <input id="current_password" name="current_password" type="password" autocomplete="current-password" required></p>
          <p><label for="disable-code">A code from your app, or a recovery code</label><br>
          <input id="disable-code" name="code" autocomplete="one-time-code" maxlength="64" required></p>
          <p><button type="submit">Turn two-factor sign-in off</button></p>
        </form>
        {{/on}}
        {{#off}}
        <p data-two-factor="off">Two-factor sign-in is <strong>off</strong>: your password alone signs you in.</p>
        <form method="post" action="{{setupAction}}">
          {{{csrfField}}}
          <p><label for="current_password">Current password</label><br>
          <input id="current_password" name="current_password" type="password" autocomplete="current-password" required></p>
          <p><button type="submit">Set up two-factor sign-in</button></p>
        </form>
        {{/off}}
        {{#form.errors.current_password}}<p class="field-error">{{.}}</p>{{/form.errors.current_password}}
        {{#form.errors.code}}<p class="field-error">{{.}}</p>{{/form.errors.code}}
        <p><a href="{{accountPath}}">Your account</a></p>
        """

    /// `account/two-factor-setup`: `secret` (base32), `uri` (`otpauth://`), `qrCode` (inline
    /// SVG), `enableAction`, and on a refusal `form.errors.code`.
    public static let setup = """
        <h1>{{title}}</h1>
        <p>Scan this code with your authenticator app, or type the key into it.</p>
        <figure class="qr-code">{{{qrCode}}}</figure>
        <p>Key: <code data-totp-secret="{{secret}}">{{secret}}</code></p>
        <p><a data-otpauth-uri="{{uri}}" href="{{uri}}">Open in an authenticator app</a></p>
        <form method="post" action="{{enableAction}}">
          {{{csrfField}}}
          <p><label for="code">The code your app shows now</label><br>
          <input id="code" name="code" autocomplete="one-time-code" inputmode="numeric" maxlength="64" required
            {{#form.errors.code}}aria-invalid="true" aria-describedby="code-error"{{/form.errors.code}}>
          {{#form.errors.code}}<span class="field-error" id="code-error">{{.}}</span>{{/form.errors.code}}</p>
          <p><button type="submit">Turn on</button></p>
        </form>
        """

    /// `account/recovery-codes`: `codes`, `twoFactorPath`.
    public static let recoveryCodes = """
        <h1>{{title}}</h1>
        <p>Keep these codes somewhere safe: each signs you in once if you lose your phone. They are shown only now.</p>
        <ul class="recovery-codes">
          {{#codes}}<li><code data-recovery-code="{{.}}">{{.}}</code></li>{{/codes}}
        </ul>
        <p><a href="{{twoFactorPath}}">Done</a></p>
        """

    /// Every template, by name.
    static let all = [
        "two-factor/sign-in": signIn, "account/two-factor": status, "account/two-factor-setup": setup,
        "account/recovery-codes": recoveryCodes,
    ]
}
