import MicroCore

/// The built-in templates of set-up links, rendered in the app's layout; an app restyles one
/// by writing its own view of the same name from the same values.
public enum SetupLinkTemplates {
    /// `account/setup`: the link's form. `username`, `action` (where it posts), `minimumLength`,
    /// and on a refusal `form` (`form.errors.new_password`, `new_password_confirmation`).
    public static let setup = """
        <h1>{{title}}</h1>
        <p>For the user <strong>{{username}}</strong>. The link works once.</p>
        <form method="post" action="{{action}}">
          {{{csrfField}}}
          <input type="text" name="username" value="{{username}}" autocomplete="username" hidden>
          <p><label for="new_password">New password</label><br>
          <input id="new_password" name="new_password" type="password" autocomplete="new-password" minlength="{{minimumLength}}" required
            {{#form.errors.new_password}}aria-invalid="true" aria-describedby="new_password-error"{{/form.errors.new_password}}>
          {{#form.errors.new_password}}<span class="field-error" id="new_password-error">{{.}}</span>{{/form.errors.new_password}}</p>
          <p><label for="new_password_confirmation">New password again</label><br>
          <input id="new_password_confirmation" name="new_password_confirmation" type="password" autocomplete="new-password" required
            {{#form.errors.new_password_confirmation}}aria-invalid="true" aria-describedby="confirmation-error"{{/form.errors.new_password_confirmation}}>
          {{#form.errors.new_password_confirmation}}<span class="field-error" id="confirmation-error">{{.}}</span>{{/form.errors.new_password_confirmation}}</p>
          <p><button type="submit">Set password</button></p>
        </form>
        """

    /// `admin/setup-link`: the link an admin made, shown this once. `username`, `link` (the
    /// absolute URL, also in the `data-setup-link` attribute), `expiresAt`/`expiresText`,
    /// `usersPath`; with mail, `mailedTo` (the address it was sent to) or `mailFailed` (the
    /// address it could not be sent to).
    public static let made = """
        <h1>{{title}}</h1>
        {{#mailedTo}}<p class="notice" role="status">The link was mailed to {{mailedTo}}.</p>{{/mailedTo}}
        {{#mailFailed}}<p class="field-error" role="alert">The message to {{mailFailed}} could not be sent: pass the link on yourself, or send a new one later.</p>{{/mailFailed}}
        <p>Give this link to <strong>{{username}}</strong>, and to nobody else: it lets them choose their password once, until <time datetime="{{expiresAt}}">{{expiresText}}</time>. It is shown only now.</p>
        <p><input class="setup-link" readonly value="{{link}}" data-setup-link="{{link}}" aria-label="Set-up link"></p>
        <p><a href="{{usersPath}}">Back to the users</a></p>
        """

    /// `account/forgot`: "forgot password". `action` (where it posts), `email` (what was typed),
    /// and on a refusal `form` (`form.errors.email`).
    public static let forgot = """
        <h1>{{title}}</h1>
        <p>Type the email address of your account: a link to choose a new password will be sent to it.</p>
        <form method="post" action="{{action}}">
          {{{csrfField}}}
          <p><label for="email">Email address</label><br>
          <input id="email" name="email" type="email" value="{{email}}" autocomplete="email" autocapitalize="none" spellcheck="false" maxlength="254" required autofocus
            {{#form.errors.email}}aria-invalid="true" aria-describedby="email-error"{{/form.errors.email}}>
          {{#form.errors.email}}<span class="field-error" id="email-error">{{.}}</span>{{/form.errors.email}}</p>
          <p><button type="submit">Send the link</button></p>
        </form>
        """

    /// `account/forgot-sent`: what every address is answered. `message`, `signInPath`.
    public static let forgotSent = """
        <h1>{{title}}</h1>
        <p role="status">{{message}}</p>
        <p><a href="{{signInPath}}">Back to sign-in</a></p>
        """

    /// Every template, by name.
    static let all = ["account/setup": setup, "admin/setup-link": made, "account/forgot": forgot, "account/forgot-sent": forgotSent]
}
