import MicroAuth
import MicroCore

/// The API token pages' built-in templates, rendered in the app's layout; an app restyles one
/// by writing its own of the same name in its views folder (`views/account/tokens.mustache`).
public enum ApiTokenTemplates {
    /// `account/tokens`: `message` (why there is no form: credentials.yml, or tokens off) or
    /// `canCreate` with `action`, `defaultDays`, `minDays`, `maxDays`, `maxName`,
    /// `scopeChoices` (each `name`, `description`, `access` for the built-in read and write,
    /// one of which is chosen, and `checked`); `tokens` (each `id`, `name`, `scopes` (its scope
    /// names), `readOnly`, `createdAt`/`createdText`, `used` with `lastUsedAt`/`lastUsedText`,
    /// `expiresAt`/`expiresText`, `revokeAction`); on a refusal `form` (`form.errors.name`,
    /// `form.errors.expires_in_days`, `form.errors.scopes`, `form.errors.current_password`,
    /// `form.errors.code`, `form.values.*`; `form.values.expires_in_days` is `defaultDays` on
    /// the first showing); `needsPassword` when the form must ask for the
    /// current password, `needsCode` for a code beside it (the user's second factor is on),
    /// `signInAgain` (the message) for a single sign-on session too old to make one.
    public static let tokens = """
        <h1>{{title}}</h1>
        {{#message}}<p class="read-only">{{message}}</p>{{/message}}
        {{#canCreate}}
        <p>A token lets a script act as you: send it as <code>Authorization: Bearer TOKEN</code> (with <code>Accept: application/json</code> for JSON answers).</p>
        <ul class="tokens">
          {{#tokens}}
          <li data-token-id="{{id}}">
            <strong>{{name}}</strong> <span class="scopes">{{#scopes}}<code>{{.}}</code> {{/scopes}}</span>{{#readOnly}}(read-only){{/readOnly}}<br>
            made <time datetime="{{createdAt}}">{{createdText}}</time>,
            last used {{#used}}<time datetime="{{lastUsedAt}}">{{lastUsedText}}</time>{{/used}}{{^used}}never{{/used}},
            expires <time datetime="{{expiresAt}}">{{expiresText}}</time>
            <form class="inline" method="post" action="{{revokeAction}}">{{{csrfField}}}<button type="submit">Revoke</button></form>
          </li>
          {{/tokens}}
        </ul>
        <form method="post" action="{{action}}">
          {{{csrfField}}}
          <p><label for="name">Name</label><br>
          <input id="name" name="name" maxlength="{{maxName}}" required value="{{form.values.name}}"
            {{#form.errors.name}}aria-invalid="true" aria-describedby="name-error"{{/form.errors.name}}>
          {{#form.errors.name}}<span class="field-error" id="name-error">{{.}}</span>{{/form.errors.name}}</p>
          <p><label for="expires_in_days">Expires in (days)</label><br>
          <input id="expires_in_days" name="expires_in_days" type="number" min="{{minDays}}" max="{{maxDays}}" value="{{form.values.expires_in_days}}"
            {{#form.errors.expires_in_days}}aria-invalid="true" aria-describedby="expires-error"{{/form.errors.expires_in_days}}>
          {{#form.errors.expires_in_days}}<span class="field-error" id="expires-error">{{.}}</span>{{/form.errors.expires_in_days}}</p>
          <fieldset class="scopes" {{#form.errors.scopes}}aria-describedby="scopes-error"{{/form.errors.scopes}}><legend>Scopes</legend>
            {{#scopeChoices}}<p><label><input type="{{#access}}radio{{/access}}{{^access}}checkbox{{/access}}" name="scopes" value="{{name}}"{{#checked}} checked{{/checked}}>
              <code>{{name}}</code>: {{description}}</label></p>{{/scopeChoices}}
            {{#form.errors.scopes}}<span class="field-error" id="scopes-error">{{.}}</span>{{/form.errors.scopes}}
          </fieldset>
          {{#needsPassword}}<p><label for="current_password">Your current password</label><br>
          <input id="current_password" name="current_password" type="password" autocomplete="current-password" required
            {{#form.errors.current_password}}aria-invalid="true" aria-describedby="password-error"{{/form.errors.current_password}}>
          {{#form.errors.current_password}}<span class="field-error" id="password-error">{{.}}</span>{{/form.errors.current_password}}</p>{{/needsPassword}}
          {{#needsCode}}<p><label for="code">A code from your app, or a recovery code</label><br>
          <input id="code" name="code" autocomplete="one-time-code" maxlength="64" required
            {{#form.errors.code}}aria-invalid="true" aria-describedby="code-error"{{/form.errors.code}}>
          {{#form.errors.code}}<span class="field-error" id="code-error">{{.}}</span>{{/form.errors.code}}</p>{{/needsCode}}
          {{#signInAgain}}<p class="notice">{{signInAgain}}</p>{{/signInAgain}}
          {{^signInAgain}}<p><button type="submit">Make a token</button></p>{{/signInAgain}}
        </form>
        {{/canCreate}}
        <p><a href="{{accountPath}}">Your account</a></p>
        """

    /// `account/token-created`: `token` (shown this once), `name`, `scopes` (its scope names),
    /// `readOnly`, `expiresAt`/`expiresText`, `tokensPath`.
    public static let created = """
        <h1>{{title}}</h1>
        <p>Your new token <strong>{{name}}</strong>, valid until <time datetime="{{expiresAt}}">{{expiresText}}</time>,
        with the scopes <span class="scopes">{{#scopes}}<code>{{.}}</code> {{/scopes}}</span>{{#readOnly}}(read-only){{/readOnly}}:</p>
        <p><code data-token="{{token}}">{{token}}</code></p>
        <p>Copy it now: it is not shown again, and not kept here (only a digest of it is).</p>
        <p><a href="{{tokensPath}}">Your tokens</a></p>
        """

    /// Every template, by name.
    static let all = ["account/tokens": tokens, "account/token-created": created]
}
