import MicroCore

/// The sign-in and sign-out pages for apps without their own templates: plain, escaped,
/// carrying the CSRF field and the flash.
enum BuiltInPages {
    static func signIn(
        _ request: Request, passwords: Bool = true, buttons: [ExternalSignIn] = [],
        additions: SignInPageAdditions.Shown = SignInPageAdditions.Shown()
    ) -> String {
        let csrf = Html.escape(request.csrfToken)
        let external = buttons.map { way in
            """
            <form method="post" action="\(Html.escape(request.url(way.action)))">
              <input type="hidden" name="_csrf" value="\(csrf)">
              <p><button type="submit">\(Html.escape(way.label))</button></p>
            </form>
            """
        }.joined(separator: "\n")
        let added = additions.blocks.map { block in
            block.html + (block.script.map { "\n<script src=\"\(Html.escape($0))\" defer></script>" } ?? "")
        }.joined(separator: "\n")
        let others = [external, added].filter { !$0.isEmpty }.joined(separator: "\n")
        guard passwords else { return page(request, title: "Sign In", body: others) }
        let action = Html.escape(request.url(request.path))
        return page(request, title: "Sign In", body: others + """
            <form method="post" action="\(action)">
              <input type="hidden" name="_csrf" value="\(Html.escape(request.csrfToken))">
              <p><label for="username">Username</label><br>
              <input id="username" name="username" autocomplete="\(Html.escape(additions.usernameAutocomplete))" autocapitalize="none" required autofocus></p>
              <p><label for="password">Password</label><br>
              <input id="password" name="password" type="password" autocomplete="current-password" required></p>
              <p><button type="submit">Sign in</button></p>
            </form>
            """)
    }

    static func signOut(_ request: Request) -> String {
        guard let user = request.currentUser else {
            return page(request, title: "Sign Out", body: "<p>You are not signed in.</p><p><a href=\"\(Html.escape(request.url("/")))\">Home</a></p>")
        }
        return page(request, title: "Sign Out", body: """
            <p>Signed in as \(Html.escape(user.name)).</p>
            <form method="post" action="\(Html.escape(request.url(request.path)))">
              <input type="hidden" name="_csrf" value="\(Html.escape(request.csrfToken))">
              <button type="submit">Sign out</button>
            </form>
            """)
    }

    private static func page(_ request: Request, title: String, body: String) -> String {
        let flash = request.flash.visible.sorted { $0.key < $1.key }
            .map { "<p class=\"flash \(Html.escape($0.key))\" role=\"status\">\(Html.escape($0.value))</p>" }
            .joined(separator: "\n")
        return """
            <!DOCTYPE html>
            <html lang="en"><head><meta charset="utf-8">
            <meta name="viewport" content="width=device-width, initial-scale=1">
            <title>\(Html.escape(title))</title></head>
            <body><main><h1>\(Html.escape(title))</h1>
            \(flash)
            \(body)
            </main></body></html>

            """
    }
}
