import MicroAuth
import MicroCore

/// The admin's users page's built-in template, rendered in the app's layout. An app restyles
/// it by writing its own `views/admin/users.mustache` from the same values.
public enum UsersTemplates {
    /// `admin/users`: `users` (each `username`, `name`, `roles`, `email` (empty for none),
    /// `disabled`, `passwordChangeDue` (a password someone else set, not yet changed), `twoFactor`,
    /// `tokens`: each live API token's `id`, `name`, `scopes` (its scope names), `createdAt`, `lastUsedText`, `expiresAt`),
    /// `proof` while changes need the acting admin's `current_password` (and `proof.code`: a
    /// `code` too), or `signInAgain` (the message) where they need a fresh sign-in,
    /// `canManage` or `readOnly` (the message), `action` (the page's path: forms post to
    /// `action/add`, `action/invite` (the add form's fields but the password: a set-up link instead),
    /// `action/setup-link`, `action/password`, `action/email`, `action/roles`, `action/disable`, `action/enable`,
    /// `action/remove`, `action/sign-out`, `action/two-factor-off`, `action/tokens/revoke` (with `id`), `action/confirm`,
    /// `action/tokens/revoke-all`, each with the field `username`), each user's `sections` (what plugins add:
    /// ``UsersPageSection``), `minimumLength`, `externalSignIn` (the add form's `no_password` box), and on a refusal
    /// `problem` (a row's form: the message; its user's `rolesList` is what was typed) or
    /// `form` (the add form: `form.errors.FIELD`, `form.values.FIELD`; never a password).
    public static let users = """
        <h1>{{title}}</h1>
        {{#readOnly}}<p class="read-only">{{readOnly}}</p>{{/readOnly}}
        {{#problem}}<p class="field-error" role="alert">{{problem}}</p>{{/problem}}
        {{#proof}}<form class="proof" method="post" action="{{action}}/confirm">{{{csrfField}}}
          <p>Changes ask for your password{{#code}} and a code from your app{{/code}}: once given, they do not ask again for a few minutes.</p>
          <label>Your password <input name="current_password" type="password" autocomplete="current-password" required></label>
          {{#code}}<label>Your code <input name="code" inputmode="numeric" autocomplete="one-time-code" required></label>{{/code}}
          <button type="submit">Confirm</button></form>{{/proof}}
        {{#signInAgain}}<p class="proof">{{signInAgain}}</p>{{/signInAgain}}
        <table class="users">
          <thead><tr><th scope="col">Username</th><th scope="col">Name</th><th scope="col">Roles</th><th scope="col">Email</th>{{#canManage}}<th scope="col">Status</th><th scope="col">Manage</th>{{/canManage}}</tr></thead>
          <tbody>
            {{#users}}
            <tr data-user="{{username}}"{{#disabled}} data-disabled{{/disabled}}><td>{{username}}</td><td>{{name}}</td><td>{{roles}}</td><td>{{email}}</td>{{#canManage}}<td>{{#disabled}}Disabled{{/disabled}}{{^disabled}}Enabled{{/disabled}}{{#passwordChangeDue}}, <span data-password-change-due>password to be changed</span>{{/passwordChangeDue}}{{#twoFactor}}, <span data-two-factor>two-factor on</span>{{/twoFactor}}</td>
              <td>
                <form class="inline" method="post" action="{{action}}/password">{{{csrfField}}}<input type="hidden" name="username" value="{{username}}">
                  <label>New password <input name="new_password" type="password" autocomplete="new-password" minlength="{{minimumLength}}" required></label> {{#proof}}<label>Your password <input name="current_password" type="password" autocomplete="current-password" required></label>{{#code}} <label>Your code <input name="code" inputmode="numeric" autocomplete="one-time-code" required></label>{{/code}} {{/proof}}<button type="submit">Set password</button></form>
                <form class="inline" method="post" action="{{action}}/setup-link">{{{csrfField}}}<input type="hidden" name="username" value="{{username}}">{{#proof}}<label>Your password <input name="current_password" type="password" autocomplete="current-password" required></label>{{#code}} <label>Your code <input name="code" inputmode="numeric" autocomplete="one-time-code" required></label>{{/code}} {{/proof}}<button type="submit">Send set-up link</button></form>
                <form class="inline" method="post" action="{{action}}/email">{{{csrfField}}}<input type="hidden" name="username" value="{{username}}">
                  <label>Email <input name="email" type="email" value="{{email}}" autocomplete="off"></label> {{#proof}}<label>Your password <input name="current_password" type="password" autocomplete="current-password" required></label>{{#code}} <label>Your code <input name="code" inputmode="numeric" autocomplete="one-time-code" required></label>{{/code}} {{/proof}}<button type="submit">Change email</button></form>
                <form class="inline" method="post" action="{{action}}/roles">{{{csrfField}}}<input type="hidden" name="username" value="{{username}}">
                  <label>Roles <input name="roles" value="{{rolesList}}"></label> {{#proof}}<label>Your password <input name="current_password" type="password" autocomplete="current-password" required></label>{{#code}} <label>Your code <input name="code" inputmode="numeric" autocomplete="one-time-code" required></label>{{/code}} {{/proof}}<button type="submit">Change roles</button></form>
                {{#disabled}}<form class="inline" method="post" action="{{action}}/enable">{{{csrfField}}}<input type="hidden" name="username" value="{{username}}">{{#proof}}<label>Your password <input name="current_password" type="password" autocomplete="current-password" required></label>{{#code}} <label>Your code <input name="code" inputmode="numeric" autocomplete="one-time-code" required></label>{{/code}} {{/proof}}<button type="submit">Enable</button></form>{{/disabled}}
                {{^disabled}}<form class="inline" method="post" action="{{action}}/disable">{{{csrfField}}}<input type="hidden" name="username" value="{{username}}">{{#proof}}<label>Your password <input name="current_password" type="password" autocomplete="current-password" required></label>{{#code}} <label>Your code <input name="code" inputmode="numeric" autocomplete="one-time-code" required></label>{{/code}} {{/proof}}<button type="submit">Disable</button></form>{{/disabled}}
                <form class="inline" method="post" action="{{action}}/sign-out">{{{csrfField}}}<input type="hidden" name="username" value="{{username}}">{{#proof}}<label>Your password <input name="current_password" type="password" autocomplete="current-password" required></label>{{#code}} <label>Your code <input name="code" inputmode="numeric" autocomplete="one-time-code" required></label>{{/code}} {{/proof}}<button type="submit">End sessions</button></form>
                {{#twoFactor}}<form class="inline" method="post" action="{{action}}/two-factor-off">{{{csrfField}}}<input type="hidden" name="username" value="{{username}}">{{#proof}}<label>Your password <input name="current_password" type="password" autocomplete="current-password" required></label>{{#code}} <label>Your code <input name="code" inputmode="numeric" autocomplete="one-time-code" required></label>{{/code}} {{/proof}}<button type="submit">Turn off two-factor</button></form>{{/twoFactor}}
                {{#hasTokens}}<details class="tokens"><summary>API tokens</summary><table>
                  <thead><tr><th scope="col">Token</th><th scope="col">Scopes</th><th scope="col">Made</th><th scope="col">Last used</th><th scope="col">Expires</th><th scope="col"></th></tr></thead>
                  <tbody>{{/hasTokens}}{{#tokens}}<tr data-token="{{id}}"><td>{{name}}</td><td class="scopes">{{#scopes}}<code>{{.}}</code> {{/scopes}}</td><td><time datetime="{{createdAt}}">{{createdText}}</time></td><td>{{lastUsedText}}</td><td><time datetime="{{expiresAt}}">{{expiresText}}</time></td>
                    <td><form class="inline" method="post" action="{{action}}/tokens/revoke">{{{csrfField}}}<input type="hidden" name="username" value="{{username}}"><input type="hidden" name="id" value="{{id}}">{{#proof}}<label>Your password <input name="current_password" type="password" autocomplete="current-password" required></label>{{#code}} <label>Your code <input name="code" inputmode="numeric" autocomplete="one-time-code" required></label>{{/code}} {{/proof}}<button type="submit">Revoke</button></form></td></tr>{{/tokens}}
                  {{#hasTokens}}</tbody></table>
                  <form class="inline" method="post" action="{{action}}/tokens/revoke-all">{{{csrfField}}}<input type="hidden" name="username" value="{{username}}">{{#proof}}<label>Your password <input name="current_password" type="password" autocomplete="current-password" required></label>{{#code}} <label>Your code <input name="code" inputmode="numeric" autocomplete="one-time-code" required></label>{{/code}} {{/proof}}<button type="submit">Revoke all tokens</button></form></details>{{/hasTokens}}
                <form class="inline" method="post" action="{{action}}/remove">{{{csrfField}}}<input type="hidden" name="username" value="{{username}}">{{#proof}}<label>Your password <input name="current_password" type="password" autocomplete="current-password" required></label>{{#code}} <label>Your code <input name="code" inputmode="numeric" autocomplete="one-time-code" required></label>{{/code}} {{/proof}}<button type="submit">Remove</button></form>
              </td>{{/canManage}}</tr>
            {{#sections}}<tr class="user-section" data-section-of="{{username}}"><td colspan="6">{{sectionTitle}}:<ul>{{#sectionLines}}<li>{{lineText}}
              {{#button}}<form class="inline" method="post" action="{{buttonAction}}">{{{csrfField}}}<input type="hidden" name="username" value="{{username}}">{{#buttonFields}}<input type="hidden" name="{{name}}" value="{{value}}">{{/buttonFields}}
                {{#buttonInput}}<label>{{buttonInputLabel}} <input name="{{buttonInput}}" required></label> {{/buttonInput}}{{#proof}}<label>Your password <input name="current_password" type="password" autocomplete="current-password" required></label>{{#code}} <label>Your code <input name="code" inputmode="numeric" autocomplete="one-time-code" required></label>{{/code}} {{/proof}}<button type="submit">{{buttonLabel}}</button></form>{{/button}}</li>{{/sectionLines}}</ul></td></tr>{{/sections}}
            {{/users}}
          </tbody>
        </table>
        {{#canManage}}
        <h2>Add a user</h2>
        <form method="post" action="{{action}}/add">
          {{{csrfField}}}
          <p><label for="new-username">Username</label><br>
          <input id="new-username" name="new_username" value="{{form.values.new_username}}" autocomplete="off" required
            {{#form.errors.new_username}}aria-invalid="true" aria-describedby="new-username-error"{{/form.errors.new_username}}>
          {{#form.errors.new_username}}<span class="field-error" id="new-username-error">{{.}}</span>{{/form.errors.new_username}}</p>
          <p><label for="new-name">Name</label><br>
          <input id="new-name" name="name" value="{{form.values.name}}"
            {{#form.errors.name}}aria-invalid="true" aria-describedby="new-name-error"{{/form.errors.name}}>
          {{#form.errors.name}}<span class="field-error" id="new-name-error">{{.}}</span>{{/form.errors.name}}</p>
          <p><label for="new-roles">Roles</label><br>
          <input id="new-roles" name="roles" value="{{form.values.roles}}"
            {{#form.errors.roles}}aria-invalid="true" aria-describedby="new-roles-error"{{/form.errors.roles}}>
          {{#form.errors.roles}}<span class="field-error" id="new-roles-error">{{.}}</span>{{/form.errors.roles}}</p>
          <p><label for="new-email">Email (optional)</label><br>
          <input id="new-email" name="email" type="email" value="{{form.values.email}}" autocomplete="off"
            {{#form.errors.email}}aria-invalid="true" aria-describedby="new-email-error"{{/form.errors.email}}>
          {{#form.errors.email}}<span class="field-error" id="new-email-error">{{.}}</span>{{/form.errors.email}}</p>
          <p><label for="new-password">Password</label><br>
          <input id="new-password" name="password" type="password" autocomplete="new-password" minlength="{{minimumLength}}"{{^externalSignIn}} required{{/externalSignIn}}
            {{#form.errors.password}}aria-invalid="true" aria-describedby="new-password-error"{{/form.errors.password}}>
          {{#form.errors.password}}<span class="field-error" id="new-password-error">{{.}}</span>{{/form.errors.password}}</p>
          {{#externalSignIn}}<p><label><input name="no_password" type="checkbox" value="on"> No password: single sign-on only (linked by the provider's name for them on their first sign-in)</label></p>{{/externalSignIn}}
          {{#proof}}<p><label for="proof-password">Your password</label><br>
          <input id="proof-password" name="current_password" type="password" autocomplete="current-password" required></p>
          {{#code}}<p><label for="proof-code">Your code</label><br>
          <input id="proof-code" name="code" inputmode="numeric" autocomplete="one-time-code" required></p>{{/code}}{{/proof}}
          <p><button type="submit">Add user</button> <button type="submit" formaction="{{action}}/invite" formnovalidate>Invite with a set-up link instead</button></p>
        </form>
        {{/canManage}}
        """
}
