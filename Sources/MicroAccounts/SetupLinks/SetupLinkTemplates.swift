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
    /// `usersPath`.
    public static let made = """
        <h1>{{title}}</h1>
        <p>Give this link to <strong>{{username}}</strong>, and to nobody else: it lets them choose their password once, until <time datetime="{{expiresAt}}">{{expiresText}}</time>. It is shown only now.</p>
        <p><input class="setup-link" readonly value="{{link}}" data-setup-link="{{link}}" aria-label="Set-up link" onfocus="this.select()"></p>
        <p><a href="{{usersPath}}">Back to the users</a></p>
        """

    /// Every template, by name.
    static let all = ["account/setup": setup, "admin/setup-link": made]
}
