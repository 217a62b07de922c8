import MicroCore

/// The sign-in and sign-out pages' built-in templates, shown in the app's layout (as the
/// account pages are) when the app has one and no `signin` or `signout` template of its own.
/// The layout shows the flash (`{{#flashMessages}}`). Without a layout the pages are whole
/// HTML pages of their own.
public enum AuthenticationTemplates {
    /// The sign-in page: `title`, the single sign-on buttons (`signInButtons`), other
    /// plugins' blocks (`signInAdditions`: `html`, `script`) and, when passwords sign in
    /// (`passwordSignIn`), the form to `signInPath`, its username field's `autocomplete` being
    /// `usernameAutocomplete`.
    public static let signIn = """
        <h1>{{title}}</h1>
        {{#signInButtons}}
        <form method="post" action="{{action}}">
          {{{csrfField}}}
          <p><button type="submit">{{label}}</button></p>
        </form>
        {{/signInButtons}}
        {{#signInAdditions}}
        {{{html}}}
        {{#script}}<script src="{{script}}" defer></script>{{/script}}
        {{/signInAdditions}}
        {{#passwordSignIn}}
        <form method="post" action="{{signInPath}}">
          {{{csrfField}}}
          <p><label for="username">Username</label><br>
          <input id="username" name="username" autocomplete="{{usernameAutocomplete}}" autocapitalize="none" spellcheck="false" required autofocus></p>
          <p><label for="password">Password</label><br>
          <input id="password" name="password" type="password" autocomplete="current-password" required></p>
          <p><button type="submit">Sign in</button></p>
        </form>
        {{/passwordSignIn}}
        """

    /// The sign-out page: `title`, and for a signed-in user (`currentUser`) the form to
    /// `signOutPath`.
    public static let signOut = """
        <h1>{{title}}</h1>
        {{#currentUser}}
        <p>Signed in as {{name}}.</p>
        <form method="post" action="{{signOutPath}}">
          {{{csrfField}}}
          <button type="submit">Sign out</button>
        </form>
        {{/currentUser}}
        {{^currentUser}}<p>You are not signed in.</p><p><a href="{{homePath}}">Home</a></p>{{/currentUser}}
        """

    /// The names they are registered under: an app's `signin` or `signout` template comes first.
    static let signInName = "micro/signin"
    static let signOutName = "micro/signout"
}
