/// The audit's app events page's built-in template, in the app's layout; an app restyles it by
/// writing `views/admin/app-events.mustache`.
public enum AppEventTemplates {
    /// `admin/app-events`: `events` (each with `user`, `kind`, `subject`, `detail`, `at`,
    /// `atText`, `address`, `browser`), the filters `kind` and `subject`, `action`, `olderLink`,
    /// `newerLink` and `auditLink`.
    public static let page = """
        <h1>{{title}}</h1>
        <form method="get" action="{{action}}">
          <label for="kind">Kind</label> <input id="kind" name="kind" value="{{kind}}" maxlength="64">
          <label for="subject">Subject</label> <input id="subject" name="subject" value="{{subject}}" maxlength="200">
          <button type="submit">Filter</button>
        </form>
        <table class="audit">
          <thead><tr><th scope="col">When</th><th scope="col">User</th><th scope="col">Kind</th><th scope="col">Subject</th><th scope="col">Detail</th><th scope="col">Address</th><th scope="col">Browser</th></tr></thead>
          <tbody>
            {{#events}}
            <tr data-app-event="{{kind}}"><td><time datetime="{{at}}">{{atText}}</time></td><td>{{user}}</td><td>{{kind}}</td><td>{{subject}}</td><td>{{detail}}</td><td>{{address}}</td><td>{{browser}}</td></tr>
            {{/events}}
          </tbody>
        </table>
        {{^events}}<p>No app events{{#kind}} of that kind{{/kind}}{{#subject}} about that subject{{/subject}}.</p>{{/events}}
        {{#newerLink}}<p><a rel="prev" href="{{newerLink}}">Newer events</a></p>{{/newerLink}}
        {{#olderLink}}<p><a rel="next" href="{{olderLink}}">Older events</a></p>{{/olderLink}}
        <p><a href="{{auditLink}}">The accounts' security events</a></p>
        """
}
