import Foundation
import MicroAuth
import MicroCore

/// The routes of the API token pages (``Accounts/apiTokens``).
struct ApiTokenRoutes {
    let accounts: AccountsService
    /// Nil when tokens are off.
    let service: ApiTokenService?
    private var settings: ApiTokenSettings { accounts.settings.apiTokens }
    private var prefix: String { accounts.settings.prefix }

    func install(in app: App) {
        app.get(prefix + "/tokens/?") { request in try await list(request, problem: nil) }
        app.post(prefix + "/tokens/?") { request in try await create(request) }
        app.post(prefix + "/tokens/:id/revoke/?") { request in try await revoke(request) }
    }

    /// The service when tokens can be made here: a store, and users the app can write (not
    /// credentials.yml); else nil and why not.
    private func available(_ request: Request) -> (ApiTokenService?, String) {
        let users = request.service(AuthenticationService.self)?.settings.users
        guard users is any PasswordUpgradingUserStore else { return (nil, settings.readOnlyUsersMessage) }
        guard let service else { return (nil, settings.offMessage) }
        return (service, "")
    }

    private func now(_ request: Request) -> Int64 { Int64(request.settings.clock().timeIntervalSince1970) }

    private func list(_ request: Request, problem: (field: String, message: String)?) async throws -> Response {
        let user = try request.authenticate()
        let (service, why) = available(request)
        guard let service else {
            if request.wantsJson { throw HttpError(.forbidden, why) }
            return try request.render("account/tokens", ["title": "API tokens", "message": why]).makeResponse(for: request)
        }
        let tokens = try await service.store.tokens(of: user.username, now: now(request))
        if request.wantsJson, problem == nil { return try JsonBody(tokens.map { ApiTokenJson($0) }).makeResponse(for: request) }
        let entries: [[String: Any]] = tokens.map { token in
            [
                "id": token.id, "name": token.name, "createdAt": AccountTime.iso(token.createdAt), "createdText": AccountTime.shown(token.createdAt),
                "used": token.lastUsedAt != 0, "lastUsedAt": token.lastUsedAt == 0 ? "" : AccountTime.iso(token.lastUsedAt),
                "lastUsedText": token.lastUsedAt == 0 ? "" : AccountTime.shown(token.lastUsedAt),
                "expiresAt": AccountTime.iso(token.expiresAt), "expiresText": AccountTime.shown(token.expiresAt),
                "revokeAction": request.url(prefix + "/tokens/" + token.id + "/revoke"), "scopes": token.scopes, "readOnly": !token.canWrite,
            ]
        }
        var values: [String: Any] = [
            "title": "API tokens", "canCreate": true, "tokens": entries, "action": request.url(prefix + "/tokens"),
            "defaultDays": ApiTokenLimits.defaultDays, "minDays": ApiTokenLimits.days.lowerBound, "maxDays": ApiTokenLimits.days.upperBound,
            "maxName": ApiTokenLimits.nameLength, "scopeChoices": scopeChoices(problem == nil ? nil : request.params.all("scopes")),
        ]
        if request.signInSource == nil {
            values["needsPassword"] = true
            if try await request.needsCode(toProve: user.username) { values["needsCode"] = true }
        } else if try await AdminProof(settings: accounts.settings).demand(of: user, request) != nil {
            values["signInAgain"] = settings.signInAgainMessage
        }
        guard let problem else {
            // The expiry field's first value; `defaultDays` stays for templates written before.
            return try request.render("account/tokens", values, formValues: ["expires_in_days": ApiTokenLimits.defaultDays]).makeResponse(for: request)
        }
        var errors = FieldErrors()
        errors.add(problem.field, problem.message)
        // What was typed comes back (bounded: the page is no echo chamber), never a token.
        let typed = ["name", "expires_in_days"].map { field in
            (name: field, value: String((request.params[field] ?? "").prefix(ApiTokenLimits.nameLength * 2)))
        }
        let error = FormError(errors, values: typed, status: .unprocessableEntity)
        if request.wantsJson { throw error }
        return try request.render("account/tokens", values, form: error).makeResponse(for: request)
    }

    /// The form's scopes: radio buttons for read and write, a checkbox for each of the app's
    /// own; checked as `sent` asked (what a refused form sent comes back), else read-only.
    private func scopeChoices(_ sent: [String]?) -> [[String: Any]] {
        let asked = Set(sent.flatMap(ApiTokenScopeChoice.names(in:)) ?? [])
        let access = asked.contains(ScopeName.write) ? ScopeName.write : ScopeName.read
        return ApiTokenScopeChoice.offered(settings).map { scope in
            let builtIn = ApiTokenScope.builtIn.contains(scope)
            return [
                "name": scope.name, "description": scope.description, "access": builtIn,
                "checked": builtIn ? scope.name == access : asked.contains(scope.name),
            ]
        }
    }

    private func create(_ request: Request) async throws -> Response {
        let user = try request.authenticate()
        let (service, why) = available(request)
        guard let service else { throw HttpError(.forbidden, why) }
        guard !ApiTokenService.isByToken(request) else { throw HttpError(.forbidden, settings.tokenByTokenMessage) }
        guard let name = ShownName.accepted(request.params["name"] ?? "", limit: ApiTokenLimits.nameLength) else {
            return try await list(request, problem: ("name", settings.nameMessage))
        }
        let typedDays = (request.params["expires_in_days"] ?? "").trimmingSpaces()
        let days: Int
        if typedDays.isEmpty {
            days = ApiTokenLimits.defaultDays
        } else {
            guard typedDays.utf8.count <= 3, typedDays.utf8.allSatisfy({ $0 >= UInt8(ascii: "0") && $0 <= UInt8(ascii: "9") }),
                let number = Int(typedDays), ApiTokenLimits.days.contains(number)
            else { return try await list(request, problem: ("expires_in_days", settings.expiryMessage)) }
            days = number
        }
        let scopes: [String]
        switch ApiTokenScopeChoice.choose(request.params.all("scopes"), settings) {
        case .chosen(let chosen): scopes = chosen
        case .refused(let message): return try await list(request, problem: ("scopes", message))
        }
        // A cookie alone, stolen, must not mint a credential that outlives it (GitHub asks the
        // same): a session signed in by password gives what turning the second factor off asks,
        // checked as a sign-in is (the same throttle), whatever it proved minutes ago. A session
        // by single sign-on has no password here: its provider vouched for the person at its
        // sign-in, which must be as recent as a proof.
        let proof = AdminProof(settings: accounts.settings)
        if request.signInSource != nil {
            guard try await proof.demand(of: user, request) == nil else { throw HttpError(.forbidden, settings.signInAgainMessage) }
        } else if let wrong = try await proof.checkAnew(user, request) {
            return try await list(request, problem: wrong)
        }
        let now = now(request)
        let secret = ApiTokenSecret.make()
        let token = ApiToken(
            id: ApiTokenSecret.makeId(), digest: ApiTokenSecret.digest(of: secret), username: user.username, name: name, createdAt: now,
            expiresAt: now + Int64(days) * 86_400, scopes: scopes)
        guard try await service.store.add(token, limit: ApiTokenLimits.perUser, now: now) else {
            return try await list(request, problem: ("name", settings.limitMessage))
        }
        // The scopes with the name: the audit says what the token may do, not only what it is called.
        await accounts.record(
            request, username: user.username, event: ActivityEvent.Kind.tokenCreated, detail: name + " (" + scopes.joined(separator: " ") + ")")
        // Shown this once: no copy of the page may be kept anywhere.
        request.response.headers.replaceOrAdd(name: "Cache-Control", value: "no-store")
        if request.wantsJson {
            request.response.status = .created
            return try JsonBody(ApiTokenJson(token, secret: secret)).makeResponse(for: request)
        }
        return try request.render("account/token-created", [
            "title": "Your new API token", "token": secret, "name": name, "expiresAt": AccountTime.iso(token.expiresAt),
            "expiresText": AccountTime.shown(token.expiresAt), "tokensPath": request.url(prefix + "/tokens"), "scopes": scopes,
            "readOnly": !token.canWrite,
        ]).makeResponse(for: request)
    }

    private func revoke(_ request: Request) async throws -> Response {
        let user = try request.authenticate()
        let id = request.params["id"] ?? ""
        guard let service, id.utf8.count <= 64, let revoked = try await service.store.revoke(id: id, of: user.username, now: now(request))
        else { throw HttpError(.notFound, "You have no such token.") }
        service.forget(digest: revoked.digest)
        await accounts.record(request, username: user.username, event: ActivityEvent.Kind.tokenRevoked, detail: revoked.name)
        if request.wantsJson { return try JsonBody(ApiTokenJson(revoked)).makeResponse(for: request) }
        request.flash["notice"] = settings.revokedMessage
        try request.redirect(to: prefix + "/tokens")
    }
}
