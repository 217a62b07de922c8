import MicroAccounts
import MicroAuth
import MicroCore

/// The passkeys' built-in templates, rendered in the app's layout; an app restyles one by
/// writing its own of the same name in its views folder (`views/account/passkeys.mustache`).
public enum PasskeyTemplates {
    /// `account/passkeys`: `available` with `passkeys` (each `id`, `name`, `createdAt`,
    /// `createdText`, `lastUsedAt` and `lastUsedText` once used, `addedFrom` where known:
    /// `browser` in words, `address` and `userAgent` with invisible characters escaped,
    /// `renameAction`, `removeAction`), `maxName`, what a removal asks for (`needsPassword`,
    /// `needsCode`, or `signInAgain`, the message, for a single sign-on session past its proof)
    /// and whether a passkey may confirm instead (`confirmAction`, `confirmOptions`,
    /// `confirmLabel`), and `canAdd` (with `addAction`, `optionsAction`, and what adding asks
    /// every time: `addPassword` and `addCode`, or `noPasswordToAdd`, the message; and where a
    /// passkey may confirm it, `addWithPasskey`, the button's label, with `addProofOptions`),
    /// `full` or `noRelyingParty` (the message: no passkey can be made at this address); else
    /// `unavailable` (the message). On a refusal `form.errors.name`,
    /// `form.errors.current_password` or `form.errors.code`.
    ///
    /// Adding and confirming run in the page's script (`script`), which reads the forms'
    /// `data-passkey`, `data-options`, `data-proof-options`, `data-passkey-proof` (the add
    /// form's button that confirms with a passkey) and `data-passkey-error`: the browser's
    /// dialog needs it.
    public static let page = """
        <h1>{{title}}</h1>
        {{#unavailable}}<p class="read-only">{{unavailable}}</p>{{/unavailable}}
        {{#available}}
        <p>A passkey signs you in with your device's lock (fingerprint, face or PIN) instead of your password, and cannot be phished.</p>
        <ul class="passkeys">
          {{#passkeys}}
          <li data-passkey="{{id}}">
            <p><strong>{{name}}</strong>, added <time datetime="{{createdAt}}">{{createdText}}</time>{{#addedFrom}}
            <span data-added-from title="{{userAgent}}">from {{browser}}{{#address}} at {{address}}{{/address}}</span>{{/addedFrom}},
            {{#lastUsedAt}}last used <time datetime="{{lastUsedAt}}">{{lastUsedText}}</time>{{/lastUsedAt}}{{^lastUsedAt}}never used{{/lastUsedAt}}</p>
            <form method="post" action="{{renameAction}}">
              {{{csrfField}}}
              <label for="name-{{id}}">Name</label>
              <input id="name-{{id}}" name="name" value="{{name}}" maxlength="{{maxName}}" required>
              <button type="submit">Rename</button>
            </form>
            <form method="post" action="{{removeAction}}">
              {{{csrfField}}}
              {{#needsPassword}}<label for="password-{{id}}">Current password</label>
              <input id="password-{{id}}" name="current_password" type="password" autocomplete="current-password" required>{{/needsPassword}}
              {{#needsCode}}<label for="code-{{id}}">A code from your app, or a recovery code</label>
              <input id="code-{{id}}" name="code" autocomplete="one-time-code" maxlength="64" required>{{/needsCode}}
              <button type="submit">Remove</button>
            </form>
          </li>
          {{/passkeys}}
        </ul>
        {{^passkeys}}<p data-passkeys="none">You have no passkeys yet.</p>{{/passkeys}}
        {{#confirmAction}}
        <form id="passkey-confirm" method="post" action="{{confirmAction}}" data-passkey="get" data-options="{{confirmOptions}}">
          {{{csrfField}}}
          <p><button type="submit">{{confirmLabel}}</button> instead of your current password, to remove passkeys here.</p>
          <p class="field-error" data-passkey-error role="alert" hidden></p>
        </form>
        {{/confirmAction}}
        {{#canAdd}}
        <form id="passkey-add" method="post" action="{{addAction}}" data-passkey="create" data-options="{{optionsAction}}"{{#addProofOptions}} data-proof-options="{{addProofOptions}}"{{/addProofOptions}}>
          {{{csrfField}}}
          <p><label for="passkey-name">Name, to tell it from your others</label><br>
          <input id="passkey-name" name="name" maxlength="{{maxName}}" required placeholder="Laptop"></p>
          {{#addPassword}}<p><label for="passkey-password">Current password</label><br>
          <input id="passkey-password" name="current_password" type="password" autocomplete="current-password" required></p>{{/addPassword}}
          {{#addCode}}<p><label for="passkey-code">A code from your app, or a recovery code</label><br>
          <input id="passkey-code" name="code" autocomplete="one-time-code" maxlength="64" required></p>{{/addCode}}
          <p class="field-error" data-passkey-error role="alert" hidden></p>
          <p>{{#addPassword}}<button type="submit">Add a passkey</button>{{/addPassword}}
          {{#addWithPasskey}}<button type="submit" data-passkey-proof formnovalidate>{{addWithPasskey}}</button>{{/addWithPasskey}}</p>
        </form>
        <noscript><p>Adding a passkey needs JavaScript: the browser's own dialog makes it.</p></noscript>
        {{/canAdd}}
        {{#noPasswordToAdd}}<p class="notice">{{noPasswordToAdd}}</p>{{/noPasswordToAdd}}
        {{#script}}<script src="{{script}}" defer></script>{{/script}}
        {{#full}}<p class="notice">{{full}}</p>{{/full}}
        {{#noRelyingParty}}<p class="read-only">{{noRelyingParty}}</p>{{/noRelyingParty}}
        {{#form.errors.name}}<p class="field-error">{{.}}</p>{{/form.errors.name}}
        {{#form.errors.current_password}}<p class="field-error">{{.}}</p>{{/form.errors.current_password}}
        {{#form.errors.code}}<p class="field-error">{{.}}</p>{{/form.errors.code}}
        {{#signInAgain}}<p class="notice">{{signInAgain}}</p>{{/signInAgain}}
        {{/available}}
        <p><a href="{{accountPath}}">Your account</a></p>
        """

    /// Every template, by name.
    static let all = ["account/passkeys": page]
}
