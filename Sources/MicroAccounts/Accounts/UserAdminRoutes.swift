import Foundation
import MicroAuth
import MicroCore

/// The routes of the admin's users page (``Accounts/usersPath``): the users listed, and where
/// the store can write (``ManagedUserStore``), the forms that add one, set a password, change
/// roles, disable, enable, remove, and end every session. Each change is an activity event of
/// the user changed, with the admin's name in its detail (`by ann`), so that the audit shows
/// who did it.
struct UserAdminRoutes {
    let service: AccountsService
    var settings: Accounts { service.settings }
    var texts: UsersPageTexts { settings.usersTexts }

    /// The most roles a user may be given at once, and the longest display name.
    static let maximumRoles = 32
    static let maximumNameLength = 200

    func install(in app: App) {
        let path = settings.usersPath
        let changes = storeChanges
        let storeChangePaths = Set(changes.map { path + $0.0 })
        app.get(path + "/?") { request in try await page(request) }
        // Sudo mode as a structure: every change under the page, its own and any a plugin adds
        // there, passes the acting admin's proof before its handler runs.
        app.group(path) { group in
            group.before { request in try await requireProof(request, storeChangePaths: storeChangePaths) }
        }
        for (suffix, change) in changes { app.post(path + suffix) { request in try await change(request) } }
        app.post(path + "/confirm") { request in try await confirm(request) }
    }

    /// The page's changes, by the path under it each form posts to: each needs a store that
    /// can write (``ManagedUserStore``).
    private var storeChanges: [(String, @Sendable (Request) async throws -> Response)] {
        [
            ("/add", add), ("/invite", invite), ("/setup-link", sendSetupLink), ("/password", setPassword), ("/email", setEmail),
            ("/roles", setRoles), ("/disable", { try await setDisabled($0, true) }), ("/enable", { try await setDisabled($0, false) }),
            ("/remove", remove), ("/sign-out", endSessions),
            ("/two-factor-off", turnTwoFactorOff), ("/tokens/revoke", revokeToken), ("/tokens/revoke-all", revokeTokens),
        ]
    }

    /// The filter before every request under the page that may change something (any method
    /// but GET, HEAD and OPTIONS): the admin role, then (where a form changes the store, only a
    /// store that can write: a users file is changed in the file, and the page asks no proof
    /// there) the acting admin's recent proof. A wrong or missing one is answered with its
    /// message alone, never the page: the filter may run before others of the app's that
    /// would keep this admin from the list (a second factor still to set up, an address
    /// allow-list), which the page's GET passes through.
    private func requireProof(_ request: Request, storeChangePaths: Set<String>) async throws {
        guard ![.GET, .HEAD, .OPTIONS].contains(request.method) else { return }
        let admin = try request.authorize(role: settings.adminRole)
        if storeChangePaths.contains(request.path), !(users(request) is any ManagedUserStore) { throw HttpError(.forbidden, texts.readOnly) }
        if let wrong = try await AdminProof(settings: settings).check(admin, request) {
            throw HttpError(request.wantsJson ? .forbidden : .unprocessableEntity, wrong.message)
        }
    }

    // MARK: The page

    func users(_ request: Request) -> (any UserStore)? {
        request.service(AuthenticationService.self)?.settings.users
    }

    /// The page, with `problem` (a row's refusal) or `form` (the add form's) on a refusal.
    func page(
        _ request: Request, problem: String? = nil, typedRoles: (user: String, roles: String)? = nil,
        typedEmail: (user: String, email: String)? = nil, form: FormError? = nil
    ) async throws -> Response {
        let admin = try request.authorize(role: settings.adminRole)
        let store = users(request)
        let managed = store as? any ManagedUserStore
        let listed: [ManagedUser]
        do {
            if let managed {
                listed = try await managed.managedUsers()
            } else {
                listed = try await (store as? any UserListing)?.allUsers().map { ManagedUser(user: $0, isDisabled: false) } ?? []
            }
        } catch {
            throw unavailable(request, error)
        }
        let withTwoFactor: Set<String>
        let tokens: [String: [ApiToken]]
        let now = request.session.now
        do {
            withTwoFactor = try await request.service(UsersPageSecondFactorService.self)?.factor.usersWithIt() ?? []
            tokens = Dictionary(grouping: try await request.service(ApiTokenService.self)?.store.liveTokens(now: now) ?? [], by: \.username)
        } catch {
            throw unavailable(request, error)
        }
        if request.wantsJson, problem == nil, form == nil {
            return try JsonBody(listed.map { ManagedUserJson($0, tokens: tokens[$0.user.username] ?? []) }).makeResponse(for: request)
        }
        // What plugins show under each user (``UsersPageSection``).
        let sections: [String: [[String: Any]]]
        do {
            sections = try await request.service(UsersPageSections.self)?.values(request, usernames: listed.map(\.user.username)) ?? [:]
        } catch {
            throw unavailable(request, error)
        }
        var values: [String: Any] = [
            "title": "Users", "action": request.url(settings.usersPath), "minimumLength": settings.passwordRules.minimumLength,
            "users": listed.map { listed -> [String: Any] in
                var roles = listed.user.roles.joined(separator: " ")
                if let typedRoles, typedRoles.user == listed.user.username { roles = typedRoles.roles }
                return [
                    "username": listed.user.username, "name": listed.user.name,
                    "roles": listed.user.roles.isEmpty ? "none" : listed.user.roles.joined(separator: ", "), "rolesList": roles,
                    "email": typedEmail?.user == listed.user.username ? typedEmail?.email ?? "" : listed.user.email ?? "",
                    "disabled": listed.isDisabled, "passwordChangeDue": listed.passwordChangeDue, "twoFactor": withTwoFactor.contains(Username.key(listed.user.username)),
                    "hasTokens": tokens[listed.user.username] != nil,
                    "tokens": (tokens[listed.user.username] ?? []).map { token -> [String: Any] in
                        [
                            "id": token.id, "name": token.name, "createdText": AccountTime.shown(token.createdAt),
                            "createdAt": AccountTime.iso(token.createdAt), "expiresText": AccountTime.shown(token.expiresAt),
                            "expiresAt": AccountTime.iso(token.expiresAt),
                            "lastUsedText": token.lastUsedAt == 0 ? "never" : AccountTime.shown(token.lastUsedAt), "scopes": token.scopes,
                        ]
                    },
                    "sections": sections[listed.user.username] ?? [],
                ]
            },
        ]
        if managed == nil { values["readOnly"] = texts.readOnly } else { values["canManage"] = true }
        let demand: AdminProof.Demand?
        do { demand = managed == nil ? nil : try await AdminProof(settings: settings).demand(of: admin, request) } catch { throw unavailable(request, error) }
        switch demand {
        case .password: values["proof"] = ["code": false]
        case .passwordAndCode: values["proof"] = ["code": true]
        case .signInAgain: values["signInAgain"] = texts.signInAgain
        case nil: break
        }
        if hasExternalSignIn(request) { values["externalSignIn"] = true }
        if let problem { values["problem"] = problem }
        if let form { return try request.render("admin/users", values, form: form).makeResponse(for: request) }
        if problem != nil { request.response.status = .unprocessableEntity }
        return try request.render("admin/users", values).makeResponse(for: request)
    }

    // MARK: The changes

    /// The admin and the store, or the answer that there is none to change.
    func begin(_ request: Request) throws -> (admin: User, store: any ManagedUserStore) {
        let admin = try request.authorize(role: settings.adminRole)
        guard let store = users(request) as? any ManagedUserStore else { throw HttpError(.forbidden, texts.readOnly) }
        return (admin, store)
    }

    /// `POST PATH/confirm`: the acting admin's password (and code) alone, which then confirms
    /// the changes that follow for ``Accounts/adminProofLifetime``.
    func confirm(_ request: Request) async throws -> Response {
        // The proof was checked before (``requireProof``), and now holds.
        _ = try request.authorize(role: settings.adminRole)
        if request.wantsJson { return Response(status: .noContent) }
        request.flash["notice"] = texts.confirmed
        try request.redirect(to: settings.usersPath)
    }

    /// The user a row's form names, in its enforced form; a 404 when it is no name.
    func target(_ request: Request) throws -> String {
        let typed = String((request.params["username"] ?? "").prefix(256))
        guard let name = try? Username.enforce(typed) else { throw HttpError(.notFound, texts.noSuchUser) }
        return name
    }

    func add(_ request: Request) async throws -> Response {
        let (admin, store) = try begin(request)
        let password = request.params["password"] ?? ""
        // A user for another way in only (single sign-on): no password, none asked.
        let noPassword = request.params["no_password"] == "on" && hasExternalSignIn(request)
        var errors = FieldErrors()
        let user = try await newUser(request, store, errors: &errors)
        if !noPassword, let problem = settings.passwordRules.problem(with: password, username: user.username.isEmpty ? user.typed : user.username) {
            errors.add("password", problem)
        }
        guard errors.isEmpty else { return try await refuse(request, errors) }
        let hash = noPassword ? StoredUser.newNoPasswordHash() : try await hash(password, request)
        // A password the admin typed is theirs as much as the user's: to be changed.
        guard try await addUser(user, hash: hash, changeDue: !noPassword, store, request, errors: &errors) else { return try await refuse(request, errors) }
        let said = await request.service(UsersPageSections.self)?.added(user.username, request) ?? []
        // A plugin dropped what an earlier holder of the name left (a user from outside the
        // store): the sessions that carried the name are not this user's.
        if !said.isEmpty { await request.endSessions(of: user.username, everyWayIn: true) }
        return try await done(
            request, admin: admin, user: user.username, event: ActivityEvent.Kind.userAdded, flash: ([texts.added] + said).joined(separator: " "))
    }

    // MARK: Pieces

    /// Whether the app has a way in beside the password (``ExternalSignIn``): then a user may
    /// be added without one.
    func hasExternalSignIn(_ request: Request) -> Bool {
        request.hasExternalSignIn
    }

    /// The answer to a change the store refused; nil when it was made.
    func refusal(
        _ change: UserChange, _ request: Request, username: String, typedRoles: (user: String, roles: String)? = nil
    ) async throws -> Response? {
        switch change {
        case .done: return nil
        case .noSuchUser: throw HttpError(.notFound, texts.noSuchUser)
        case .lastAdmin: return try await refuse(request, username: username, texts.lastAdmin, typedRoles: typedRoles)
        }
    }

    /// A row's form refused with `message`: the page with it beside what was typed.
    func refuse(
        _ request: Request, username: String, _ message: String, typedRoles: (user: String, roles: String)? = nil,
        typedEmail: (user: String, email: String)? = nil
    ) async throws -> Response {
        if request.wantsJson { throw HttpError(.unprocessableEntity, message) }
        return try await page(request, problem: "\(username): \(message)", typedRoles: typedRoles, typedEmail: typedEmail)
    }

    /// The add form again, with what was typed but the password.
    func refuse(_ request: Request, _ errors: FieldErrors) async throws -> Response {
        // What a page cannot show (controls, terminal escapes) is not shown back either.
        let kept = request.params.form.filter { $0.name != "password" && $0.name != "new_password" && $0.name != "_csrf" }.map { field in
            (name: field.name, value: String(String.UnicodeScalarView(field.value.prefix(1024).unicodeScalars.map {
                $0.properties.generalCategory == .control ? "\u{FFFD}" : $0
            })))
        }
        let error = FormError(errors, values: kept, status: .unprocessableEntity)
        if request.wantsJson { throw error }
        return try await page(request, form: error)
    }

    /// Records the change for `user`, naming the admin, and goes back to the page.
    func done(
        _ request: Request, admin: User, user: String, event: String, flash: String, detail: String = ""
    ) async throws -> Response {
        await service.record(request, username: user, event: event, detail: (detail.isEmpty ? "" : detail + " ") + "by \(admin.username)")
        request.flash["notice"] = flash.replacingOccurrences(of: "NAME", with: user)
        try request.redirect(to: settings.usersPath)
    }

    func hash(_ password: String, _ request: Request) async throws -> String {
        guard let authentication = request.service(AuthenticationService.self) else {
            throw ConfigurationError("The users page needs app.use(Authentication(users: ...)).")
        }
        let cost = authentication.settings.passwordCost
        return try await authentication.settings.hasher.run { try Password.hash(password, cost: cost) }
    }

    /// A 503 for a store that cannot be read or written now; the log has why.
    func unavailable(_ request: Request, _ error: any Error) -> any Error {
        if error is HttpError { return error }
        request.logger.error("The users page cannot use the user store: \(error)")
        return HttpError(.serviceUnavailable, "The users cannot be changed right now. Please try again in a minute.", headers: ["Retry-After": "60"])
    }

    /// The roles of a typed list, without repeats; nil when a name is not a role name or
    /// there are too many.
    static func roles(_ text: String) -> [String]? {
        guard text.utf8.count <= 2048, let roles = User.roles(inList: text.lowercased()) else { return nil }
        var seen = Set<String>()
        let unique = roles.filter { seen.insert($0).inserted }
        return unique.count <= maximumRoles ? unique : nil
    }

    /// Whether `name` can be a display name: at most ``maximumNameLength`` characters, no
    /// controls, invisible formatting (bidirectional overrides), unassigned code points, or
    /// characters that show as nothing: the default-ignorable ones (the Hangul fillers U+3164
    /// and U+FFA0 among them), spaces other than U+0020, the blank Braille pattern. The users
    /// page and SCIM share it: a name that looks empty, or like another's, is refused by both.
    static func isAcceptable(name: String) -> Bool {
        guard name.count <= maximumNameLength, name.utf8.count <= 4 * maximumNameLength else { return false }
        let refused: Set<Unicode.GeneralCategory> = [.control, .format, .lineSeparator, .paragraphSeparator, .unassigned, .privateUse, .surrogate]
        return !name.unicodeScalars.contains { scalar in
            refused.contains(scalar.properties.generalCategory) || scalar.properties.isDefaultIgnorableCodePoint
                || (scalar.properties.generalCategory == .spaceSeparator && scalar != " ") || scalar == "\u{2800}"
        }
    }
}
