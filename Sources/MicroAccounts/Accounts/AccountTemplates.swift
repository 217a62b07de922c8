import MicroAuth
import MicroCore

/// The account pages' built-in templates, rendered in the app's layout. An app restyles a page
/// by writing its own of the same name in its views folder (`views/account/sessions.mustache`),
/// from the same values: these are the reference.
public enum AccountTemplates {
    /// `account/index`: `user` (`username`, `name`, `roles`), `accountPath`.
    public static let index = """
        <h1>{{title}}</h1>
        <p>Signed in as <strong>{{user.name}}</strong> ({{user.username}}).</p>
        <ul class="account-links">
          <li><a href="{{accountPath}}/password">Change your password</a></li>
          <li><a href="{{accountPath}}/sessions">Where you are signed in</a></li>
          <li><a href="{{accountPath}}/activity">Your account's activity</a></li>
          {{#twoFactorPath}}<li><a href="{{twoFactorPath}}">Two-factor sign-in</a></li>{{/twoFactorPath}}
          {{#passkeysPath}}<li><a href="{{passkeysPath}}">Passkeys</a></li>{{/passkeysPath}}
          <li><a href="{{accountPath}}/tokens">API tokens</a></li>
          {{#currentUser.role.admin}}<li><a href="{{basePath}}/admin/audit">Every account's activity</a></li>{{/currentUser.role.admin}}
          {{#currentUser.role.admin}}<li><a href="{{basePath}}/admin/users">Users</a></li>{{/currentUser.role.admin}}
        </ul>
        """

    /// `account/password`: `canChange` or `readOnly` (the message), `changeDue` (the message
    /// while the password was set by someone else and must be changed), and on a refusal
    /// `form` (`form.errors.current_password`, `new_password`, `new_password_confirmation`).
    public static let password = """
        <h1>{{title}}</h1>
        {{#changeDue}}<p class="notice" role="alert" data-password-change-due>{{changeDue}}</p>{{/changeDue}}
        {{#readOnly}}<p class="read-only">{{readOnly}}</p>{{/readOnly}}
        {{#canChange}}
        <form method="post" action="{{accountPath}}/password">
          {{{csrfField}}}
          <p><label for="current_password">Current password</label><br>
          <input id="current_password" name="current_password" type="password" autocomplete="current-password" required
            {{#form.errors.current_password}}aria-invalid="true" aria-describedby="current_password-error"{{/form.errors.current_password}}>
          {{#form.errors.current_password}}<span class="field-error" id="current_password-error">{{.}}</span>{{/form.errors.current_password}}</p>
          <p><label for="new_password">New password</label><br>
          <input id="new_password" name="new_password" type="password" autocomplete="new-password" minlength="8" required
            {{#form.errors.new_password}}aria-invalid="true" aria-describedby="new_password-error"{{/form.errors.new_password}}>
          {{#form.errors.new_password}}<span class="field-error" id="new_password-error">{{.}}</span>{{/form.errors.new_password}}</p>
          <p><label for="new_password_confirmation">New password again</label><br>
          <input id="new_password_confirmation" name="new_password_confirmation" type="password" autocomplete="new-password" required
            {{#form.errors.new_password_confirmation}}aria-invalid="true" aria-describedby="confirmation-error"{{/form.errors.new_password_confirmation}}>
          {{#form.errors.new_password_confirmation}}<span class="field-error" id="confirmation-error">{{.}}</span>{{/form.errors.new_password_confirmation}}</p>
          <p><button type="submit">Change password</button></p>
        </form>
        {{/canChange}}
        <p><a href="{{accountPath}}">Your account</a></p>
        """

    /// `account/sessions`: `sessions` (each `id`, `browser`, `userAgent`, `address`,
    /// `signedInAt`/`signedInText`, `lastSeenAt`/`lastSeenText`, `current`, `signOutAction`),
    /// `others`, `signOutOthersAction`.
    public static let sessions = """
        <h1>{{title}}</h1>
        <ul class="sessions">
          {{#sessions}}
          <li data-session-id="{{id}}"{{#current}} data-current{{/current}}>
            <strong title="{{userAgent}}">{{browser}}</strong>{{#current}} · This device{{/current}}<br>
            from {{address}}, signed in <time datetime="{{signedInAt}}">{{signedInText}}</time>,
            last seen <time datetime="{{lastSeenAt}}">{{lastSeenText}}</time>
            <form class="inline" method="post" action="{{signOutAction}}">{{{csrfField}}}<button type="submit">Sign out</button></form>
          </li>
          {{/sessions}}
        </ul>
        {{#others}}
        <form method="post" action="{{signOutOthersAction}}">{{{csrfField}}}<button type="submit">Sign out everywhere else</button></form>
        {{/others}}
        <p><a href="{{accountPath}}">Your account</a></p>
        """

    /// `account/activity`: `events` (each `event`, `at`/`atText`, `address`, `browser`, `detail`).
    public static let activity = """
        <h1>{{title}}</h1>
        <ol class="activity">
          {{#events}}
          <li data-event="{{event}}"><time datetime="{{at}}">{{atText}}</time> · {{event}}{{#detail}} ({{detail}}){{/detail}} · {{address}} · {{browser}}</li>
          {{/events}}
        </ol>
        <p><a href="{{accountPath}}">Your account</a></p>
        """

    /// `admin/audit`: `events` (as the activity page's, with `user`, and `accountEnded` for
    /// events of an earlier account of the name), `user` (the filter), `olderLink`, `newerLink`, `action`,
    /// unfiltered `unknownLink` (the failed sign-ins under names that are no user, kept apart),
    /// and `appEventsLink` (the app's own events).
    public static let audit = """
        <h1>{{title}}</h1>
        <form method="get" action="{{action}}"><label for="user">User</label> <input id="user" name="user" value="{{user}}"> <button type="submit">Filter</button></form>
        <table class="audit">
          <thead><tr><th scope="col">When</th><th scope="col">User</th><th scope="col">Event</th><th scope="col">Address</th><th scope="col">Browser</th><th scope="col">Detail</th></tr></thead>
          <tbody>
            {{#events}}
            <tr data-event="{{event}}" data-user="{{user}}"{{#accountEnded}} data-account-ended="{{accountEnded}}"{{/accountEnded}}><td><time datetime="{{at}}">{{atText}}</time></td><td>{{user}}{{#accountEnded}} <small>(an earlier account, removed <time datetime="{{accountEnded}}">{{accountEndedText}}</time>)</small>{{/accountEnded}}</td><td>{{event}}</td><td>{{address}}</td><td>{{browser}}</td><td>{{detail}}</td></tr>
            {{/events}}
          </tbody>
        </table>
        {{#newerLink}}<p><a rel="prev" href="{{newerLink}}">Newer events</a></p>{{/newerLink}}
        {{#olderLink}}<p><a rel="next" href="{{olderLink}}">Older events</a></p>{{/olderLink}}
        {{#unknownLink}}<p><a href="{{unknownLink}}">Failed sign-ins under names that are no user</a> are kept apart.</p>{{/unknownLink}}
        <p><a href="{{appEventsLink}}">The app's own events</a></p>
        """

    /// Every template, by name.
    static let all = [
        "account/index": index, "account/password": password, "account/sessions": sessions, "account/activity": activity,
        "admin/audit": audit,
    ]
}
