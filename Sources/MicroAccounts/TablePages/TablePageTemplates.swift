/// The table pages' built-in templates, in the app's layout; an app restyles one by writing
/// it in its views under the table's folder (`views/items/list.mustache`).
public enum TablePageTemplates {
    /// `list`: `title`, `columns` (each `label`, and for a sortable one `sortLink` and `sorted`),
    /// `rows` (each `link` and `cells`, each `text`), `searchable` and `q`, `filters` (each
    /// `name`, `label`, `value`, `options`), `action`, `page` (`next`, `previous`), `newLink`,
    /// `csvLink`, and for an archiving table `archivedLink` and `showsArchived`.
    public static let list = """
        <h1>{{title}}</h1>
        {{#newLink}}<p><a href="{{newLink}}">Add</a></p>{{/newLink}}
        <form method="get" action="{{action}}" role="search">
          {{#searchable}}<label for="q">Search</label> <input id="q" name="q" type="search" value="{{q}}" maxlength="200">{{/searchable}}
          {{#filters}}
          <label for="filter-{{name}}">{{label}}</label>
          {{#hasChoices}}<select id="filter-{{name}}" name="{{name}}"><option value="">All</option>{{#options}}<option value="{{value}}"{{#selected}} selected{{/selected}}>{{value}}</option>{{/options}}</select>{{/hasChoices}}
          {{^hasChoices}}<input id="filter-{{name}}" name="{{name}}" value="{{value}}" maxlength="200">{{/hasChoices}}
          {{/filters}}
          <button type="submit">Show</button>
        </form>
        <table>
          <thead><tr>{{#columns}}<th scope="col">{{#sortLink}}<a href="{{sortLink}}">{{label}}</a>{{#sorted}} <span aria-label="sorted {{sorted}}">{{sorted}}</span>{{/sorted}}{{/sortLink}}{{^sortLink}}{{label}}{{/sortLink}}</th>{{/columns}}<th scope="col"><span class="visually-hidden">Row</span></th></tr></thead>
          <tbody>
            {{#rows}}
            <tr>{{#cells}}<td>{{text}}</td>{{/cells}}<td><a href="{{link}}">Open</a></td></tr>
            {{/rows}}
          </tbody>
        </table>
        {{^rows}}<p>Nothing to show.</p>{{/rows}}
        {{#page.previous}}<p><a rel="prev" href="{{page.previous}}">Previous page</a></p>{{/page.previous}}
        {{#page.next}}<p><a rel="next" href="{{page.next}}">Next page</a></p>{{/page.next}}
        <p><a href="{{csvLink}}">Download as CSV</a>{{#archivedLink}} · <a href="{{archivedLink}}">{{#showsArchived}}Hide{{/showsArchived}}{{^showsArchived}}Show{{/showsArchived}} archived</a>{{/archivedLink}}</p>
        """

    /// `show`: `title`, `fields` (each `label`, `text`), `archived`, `listLink`, `editLink`,
    /// `deleteAction` and `deleteLabel`.
    public static let show = """
        <h1>{{title}}</h1>
        {{#archived}}<p class="archived">Archived.</p>{{/archived}}
        <dl>
          {{#fields}}<dt>{{label}}</dt><dd>{{text}}</dd>{{/fields}}
        </dl>
        {{#editLink}}<p><a href="{{editLink}}">Change</a></p>{{/editLink}}
        {{#deleteAction}}
        <form method="post" action="{{deleteAction}}">
          {{{csrfField}}}
          <button type="submit">{{deleteLabel}}</button>
        </form>
        {{/deleteAction}}
        <p><a href="{{listLink}}">Back to the list</a></p>
        """

    /// `form`: `title`, `action`, `failed` (the refusal's message), `fields` (each `name`,
    /// `label`, `value`, `required`, `error`, and `isText`, `isNumber` with `step`, `isBool`
    /// with `checked`, or `isChoice` with `options`), `cancelLink`; a refused form's `form` too.
    public static let form = """
        <h1>{{title}}</h1>
        {{#failed}}<p class="error" role="alert">{{failed}}</p>{{/failed}}
        <form method="post" action="{{action}}">
          {{{csrfField}}}
          {{#fields}}
          <p>
            {{#isBool}}<label><input type="checkbox" name="{{name}}" value="on"{{#checked}} checked{{/checked}}> {{label}}</label>{{/isBool}}
            {{^isBool}}<label for="field-{{name}}">{{label}}</label><br>{{/isBool}}
            {{#isText}}<input id="field-{{name}}" name="{{name}}" value="{{value}}"{{#required}} required{{/required}}{{#error}} aria-invalid="true" aria-describedby="error-{{name}}"{{/error}}>{{/isText}}
            {{#isNumber}}<input id="field-{{name}}" name="{{name}}" type="number" step="{{step}}" value="{{value}}"{{#required}} required{{/required}}{{#error}} aria-invalid="true" aria-describedby="error-{{name}}"{{/error}}>{{/isNumber}}
            {{#isChoice}}<select id="field-{{name}}" name="{{name}}"{{#required}} required{{/required}}>{{^required}}<option value=""></option>{{/required}}{{#options}}<option value="{{value}}"{{#selected}} selected{{/selected}}>{{value}}</option>{{/options}}</select>{{/isChoice}}
            {{#error}}<br><span class="error" id="error-{{name}}">{{error}}</span>{{/error}}
          </p>
          {{/fields}}
          <p><button type="submit">Save</button> <a href="{{cancelLink}}">Cancel</a></p>
        </form>
        """
}
