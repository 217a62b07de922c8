import Micro
import MicroOpenIdConnect

/// The sample app's routes: what `main.swift` serves and the tests exercise.
enum SampleRoutes {
    /// The tool categories of the home page.
    static let categories: [[String: String]] = [
        ["name": "Date Conversion", "path": "/tools/date-conversion", "summary": "Milliseconds since 1970 to a formatted date, and back."],
        ["name": "Data Encoding", "path": "/tools/data-encoding", "summary": "Base64, URL, hex and HTML encoding and decoding."],
        ["name": "Data Encryption", "path": "/tools/data-encryption", "summary": "MD5, SHA digests, HMAC-SHA256 and bcrypt hashes."],
    ]

    /// The routes over `users`; failed sign-ins are counted in `throttleStore` when there is
    /// one (a database shared by instances); the encryption tool's bcrypt runs on `toolHasher`.
    /// The account pages keep their sessions and events in `accounts` (a database, or memory);
    /// `singleSignOn` adds an OpenID Connect provider and may turn passwords off; `signInProxy`
    /// signs in the person a proxy in front vouches for.
    static func install(
        in app: App, users: any UserStore, throttleStore: (any SignInThrottleStore)? = nil,
        accounts: Accounts = Accounts(), toolHasher: PasswordHasher = ToolRoutes.toolHasher,
        signInHasher: PasswordHasher = .shared, singleSignOn: SingleSignOnSettings = SingleSignOnSettings(),
        signInProxy: (any AppPlugin)? = nil
    ) {
        var authentication = Authentication(users: users)
        authentication.hasher = signInHasher
        authentication.throttleStore = throttleStore
        authentication.acceptsPasswords = singleSignOn.acceptsPasswords
        app.use(authentication)
        var accounts = accounts
        accounts.twoFactor.issuer = "Micro Tools"
        app.use(accounts)
        if let provider = singleSignOn.provider { app.use(provider) }
        if let signInProxy { app.use(signInProxy) }

        app.get("/") { request in
            try request.render("index", ["title": "Engineering Utilities", "categories": categories])
        }

        app.get("/protected/?") { request in
            try request.authenticate()
            return try request.render("protected", ["title": "Protected Page"])
        }

        ToolRoutes.install(in: app, hasher: toolHasher)
        // Admins manage the users at /admin/users: a page of the Accounts plugin.
    }
}
