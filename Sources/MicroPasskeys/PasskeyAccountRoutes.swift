import MicroAccounts
import MicroAuth
import MicroCore

/// The account page of passkeys: the user's list (with where each was added from), adding one
/// (the current password and code, or a passkey, then the browser's dialog), renaming and
/// removing one.
struct PasskeyAccountRoutes {
    let service: PasskeyService
    let accounts: Accounts
    private var settings: PasskeySettings { service.settings }

    func install(in app: App) {
        let base = service.pagePath
        app.get(base + "/?") { request in try await page(request) }
        app.post(base + "/options/?") { request in try await creationOptions(request) }
        app.post(base + "/?") { request in try await add(request) }
        app.post(base + "/:id/rename/?") { request in try await rename(request) }
        app.post(base + "/:id/remove/?") { request in try await remove(request) }
    }

    /// The store, for a request of a signed-in browser; a refusal where there are no passkeys,
    /// and for an API token (a token must not add or remove a way to sign in).
    private func store(_ request: Request) throws -> PasskeyStore {
        guard let store = service.store(offeredFor: request) else {
            throw HttpError(.forbidden, service.store == nil ? settings.unavailableMessage : settings.singleSignOnOnlyMessage)
        }
        guard !request.isSignedInByApiToken else { throw HttpError(.forbidden, accounts.apiTokens.tokenByTokenMessage) }
        return store
    }

    /// The store and the relying party, to add a passkey; a refusal where a browser would
    /// refuse to make one. Renaming and removing need no relying party: the app's address may
    /// have changed since.
    private func place(_ request: Request) throws -> (PasskeyStore, PasskeyRelyingParty) {
        let store = try store(request)
        guard let relyingParty = service.relyingParty(for: request) else { throw HttpError(.forbidden, settings.noRelyingPartyMessage) }
        return (store, relyingParty)
    }

    // MARK: The page

    private func page(_ request: Request, problem: (field: String, message: String)? = nil) async throws -> Response {
        let user = try request.authenticate()
        var values: [String: Any] = ["title": "Passkeys"]
        var listed: [Passkey] = []
        if let store = service.store(offeredFor: request) {
            listed = try await store.passkeys(of: Username.key(user.username))
            values["available"] = true
            values["maxName"] = PasskeySettings.nameLength
            values["passkeys"] = listed.map { passkey -> [String: Any] in
                let id = Base64Url.encode(passkey.credentialId)
                var entry: [String: Any] = [
                    "id": id, "name": passkey.name, "createdAt": AccountTime.iso(passkey.createdAt),
                    "createdText": AccountTime.shown(passkey.createdAt),
                    "renameAction": request.url(service.pagePath + "/" + id + "/rename"),
                    "removeAction": request.url(service.pagePath + "/" + id + "/remove"),
                ]
                // The browser in words, which holds nothing a client chose but digits; the
                // address and the whole `User-Agent` with their invisible characters made
                // visible, so that no text-direction override turns the line around.
                if !passkey.addedFromUserAgent.isEmpty || !passkey.addedFromAddress.isEmpty {
                    entry["addedFrom"] = [
                        "browser": UserAgentSummary.describe(passkey.addedFromUserAgent),
                        "userAgent": ControlEscapingLogHandler.escape(passkey.addedFromUserAgent),
                        "address": ControlEscapingLogHandler.escape(passkey.addedFromAddress),
                    ]
                }
                if passkey.lastUsedAt > 0 {
                    entry["lastUsedAt"] = AccountTime.iso(passkey.lastUsedAt)
                    entry["lastUsedText"] = AccountTime.shown(passkey.lastUsedAt)
                }
                return entry
            }
            let atRelyingParty = service.relyingParty(for: request) != nil
            if !atRelyingParty {
                values["noRelyingParty"] = settings.noRelyingPartyMessage
            } else if listed.count < settings.limit {
                // Adding asks every time, whatever the session proved (below): the password and
                // code, or one of the user's passkeys.
                let password = await hasPassword(user, request)
                if password {
                    values["addPassword"] = true
                    if try await request.needsCode(toProve: user.username) { values["addCode"] = true }
                } else {
                    values["noPasswordToAdd"] = settings.noPasswordToAddMessage
                }
                if !listed.isEmpty {
                    values["addWithPasskey"] = settings.addWithPasskeyLabel
                    values["addProofOptions"] = request.url(service.confirmPath + "/options")
                }
                if password || !listed.isEmpty {
                    values["canAdd"] = true
                    values["addAction"] = request.url(service.pagePath)
                    values["optionsAction"] = request.url(service.pagePath + "/options")
                    values["script"] = request.url(service.scriptPath)
                }
            } else {
                values["full"] = settings.fullMessage
            }
            let demand = try await AdminProof(settings: accounts).demand(of: user, request)
            switch demand {
            case nil: break
            case .password: values["needsPassword"] = true
            case .passwordAndCode: values["needsPassword"] = true; values["needsCode"] = true
            case .signInAgain: values["signInAgain"] = settings.signInAgainMessage
            }
            // One of the user's passkeys may confirm instead (PasskeyConfirmationRoutes).
            if demand != nil, atRelyingParty, !listed.isEmpty {
                values["confirmAction"] = request.url(service.confirmPath)
                values["confirmOptions"] = request.url(service.confirmPath + "/options")
                values["confirmLabel"] = settings.confirmLabel
                values["script"] = request.url(service.scriptPath)
            }
        } else {
            values["unavailable"] = service.store == nil ? settings.unavailableMessage : settings.singleSignOnOnlyMessage
        }
        if request.wantsJson, problem == nil {
            return try JsonBody(listed.map(PasskeyJson.init)).makeResponse(for: request)
        }
        guard let problem else { return try request.render("account/passkeys", values).makeResponse(for: request) }
        var errors = FieldErrors()
        errors.add(problem.field, problem.message)
        // Passwords are never shown again; nothing else typed on this page needs keeping.
        let error = FormError(errors, values: [], status: .unprocessableEntity)
        if request.wantsJson { throw error }
        return try request.render("account/passkeys", values, form: error).makeResponse(for: request)
    }

    /// The refusal of a removal `user` has not confirmed: what turning the second factor off
    /// asks (the password, and the code where a second factor is on; checked as a sign-in is,
    /// so these forms are no way around the throttle), or a recent sign-in by single sign-on.
    /// A proof holds for a few minutes (``Accounts/adminProofLifetime``), as the users page's.
    /// Nil once confirmed.
    private func unconfirmed(_ request: Request, _ user: User) async throws -> Response? {
        let proof = AdminProof(settings: accounts)
        if try await proof.demand(of: user, request) == .signInAgain { throw HttpError(.forbidden, settings.signInAgainMessage) }
        guard let wrong = try await proof.check(user, request) else { return nil }
        return try await page(request, problem: wrong)
    }

    /// Whether `user` has a password in the user store (one made for single sign-on only has
    /// none, and adds a passkey only with another). A store that cannot be read now counts as
    /// yes: the password's own check then answers that sign-in is unavailable.
    private func hasPassword(_ user: User, _ request: Request) async -> Bool {
        guard let authentication = request.authenticationSettings,
            let stored = try? await authentication.users.find(username: user.username, using: authentication.hasher)
        else { return true }
        return stored.hasPassword
    }

    /// The refusal of an addition `user` has not confirmed on this very request, whatever the
    /// session proved before: a passkey is a way in, and a cookie copied during a proof's
    /// minutes must not add the copier's. One of the user's passkeys that verifies the person
    /// (the answer to the confirmation's dialog, in place of the password), or what turning
    /// the second factor off asks. Nil once given; it then holds for the page's removals, as
    /// a right password does there.
    private func unconfirmedAddition(_ request: Request, _ user: User, store: PasskeyStore, relyingParty: PasskeyRelyingParty)
        async throws -> Response?
    {
        if request.params["credential_id"] != nil {
            let confirmation = PasskeyConfirmationRoutes(service: service, accounts: accounts)
            try await confirmation.confirm(request, user, store: store, relyingParty: relyingParty)
            return nil
        }
        guard await hasPassword(user, request) else { throw HttpError(.forbidden, settings.noPasswordToAddMessage) }
        if let wrong = try await AdminProof(settings: accounts).checkAnew(user, request) { return try await page(request, problem: wrong) }
        AdminProof.note(request, lifetime: accounts.adminProofLifetime.components.seconds)
        return nil
    }

    // MARK: Adding one

    /// The options for the browser's dialog, after the password and code or a passkey: a
    /// registration challenge in the session, which the answer must carry.
    private func creationOptions(_ request: Request) async throws -> Response {
        let user = try request.authenticate()
        let (store, relyingParty) = try place(request)
        let name = Username.key(user.username)
        let existing = try await store.passkeys(of: name)
        guard existing.count < settings.limit else { return try await page(request, problem: ("name", settings.fullMessage)) }
        if let refused = try await unconfirmedAddition(request, user, store: store, relyingParty: relyingParty) { return refused }
        // The handle of the user's passkeys, else the one a registration under way was given
        // (two tabs, a dialog tried again), else a new one.
        let earlier = request.session.get(PendingPasskeyRegistration.key, as: PendingPasskeyRegistration.self)
        let handle =
            try await store.userHandle(of: name) ?? earlier.flatMap { $0.username == name ? Base64Url.decode($0.userHandle) : nil }
            ?? PendingPasskeyRegistration.newUserHandle()
        let challenge = try request.newPasskeyChallenge(for: .registration)
        try request.session.set(PendingPasskeyRegistration.key, PendingPasskeyRegistration(username: name, userHandle: Base64Url.encode(handle)))
        return request.passkeyOptions(
            PasskeyOptions.creation(
                challenge: challenge, relyingParty: relyingParty, appName: settings.appName ?? relyingParty.id, userHandle: handle,
                username: user.username, displayName: user.name, existing: existing.map(\.credentialId)))
    }

    /// The browser's answer: verified, its challenge spent, and stored under the name given.
    private func add(_ request: Request) async throws -> Response {
        let user = try request.authenticate()
        let (store, relyingParty) = try place(request)
        let name = Username.key(user.username)
        guard let typedName = ShownName.accepted(request.params["name"] ?? "", limit: PasskeySettings.nameLength) else {
            throw HttpError(.unprocessableEntity, settings.nameMessage)
        }
        let answer = try registrationAnswer(request)
        // The challenge is taken from the session whatever comes after: one answer per dialog.
        var pending = request.pendingPasskeyChallenges
        let made: NewPasskey
        do {
            made = try answer.verify(against: &pending, at: request.session.now, relyingParty: relyingParty, userVerification: false)
        } catch {
            try request.keepPasskeyChallenges(pending)
            throw HttpError(error.isMalformed ? .badRequest : .unprocessableEntity, error.message)
        }
        try request.keepPasskeyChallenges(pending)
        // Kept after: another dialog under way for the same user carries the same handle.
        let registration = request.session.get(PendingPasskeyRegistration.key, as: PendingPasskeyRegistration.self)
        guard let registration, registration.username == name, let handle = Base64Url.decode(registration.userHandle) else {
            throw HttpError(.unprocessableEntity, PasskeyError.wrongChallenge.message)
        }
        guard try await store.spend(made.challenge, now: request.session.now) else {
            throw HttpError(.unprocessableEntity, PasskeyError.wrongChallenge.message)
        }
        let passkey = Passkey(
            credentialId: made.credentialId, username: name, userHandle: handle, name: typedName, publicKey: made.publicKey,
            signCount: made.signCount, backupEligible: made.backupEligible, createdAt: request.session.now,
            addedFromAddress: request.clientAddress ?? "", addedFromUserAgent: request.userAgent ?? "")
        switch try await store.add(passkey, limit: settings.limit) {
        case .added: break
        case .full: throw HttpError(.unprocessableEntity, settings.fullMessage)
        case .credentialTaken: throw HttpError(.conflict, settings.takenMessage)
        }
        await request.recordAccountEvent(ActivityEvent.Kind.passkeyAdded, of: user.username, detail: typedName)
        request.flash["notice"] = settings.addedMessage
        request.response.status = .created
        return try JsonBody(["location": request.url(service.pagePath)]).makeResponse(for: request)
    }

    /// The fields the page's script posts; a 400 when one is missing (a form sent without the
    /// script).
    private func registrationAnswer(_ request: Request) throws -> PasskeyRegistrationResponse {
        guard let id = request.params["credential_id"], let clientData = request.params["client_data"],
            let authenticatorData = request.params["authenticator_data"], let algorithm = request.params["algorithm"]
        else { throw HttpError(.badRequest, "Adding a passkey needs the page's script: turn JavaScript on and try again.") }
        guard algorithm.utf8.count <= 8, let number = Int(algorithm) else { throw HttpError(.badRequest, PasskeyError.unsupportedAlgorithm.message) }
        return PasskeyRegistrationResponse(credentialId: id, clientData: clientData, authenticatorData: authenticatorData, algorithm: number)
    }

    // MARK: Once added

    /// The credential id in the path; a 404 for one that cannot be a passkey's.
    private func credentialId(_ request: Request) throws -> [UInt8] {
        guard let text = request.params["id"], let id = try? PasskeyField.decode(text, "credential id", limit: PasskeyLimits.credentialId)
        else { throw HttpError(.notFound, "You have no such passkey.") }
        return id
    }

    private func rename(_ request: Request) async throws -> Response {
        let user = try request.authenticate()
        let store = try store(request)
        let id = try credentialId(request)
        guard let newName = ShownName.accepted(request.params["name"] ?? "", limit: PasskeySettings.nameLength) else {
            return try await page(request, problem: ("name", settings.nameMessage))
        }
        guard try await store.rename(credentialId: id, of: Username.key(user.username), to: newName) else {
            throw HttpError(.notFound, "You have no such passkey.")
        }
        request.flash["notice"] = settings.renamedMessage
        try request.redirect(to: service.pagePath)
    }

    private func remove(_ request: Request) async throws -> Response {
        let user = try request.authenticate()
        let store = try store(request)
        let id = try credentialId(request)
        if let refused = try await unconfirmed(request, user) { return refused }
        guard let removed = try await store.remove(credentialId: id, of: Username.key(user.username)) else {
            throw HttpError(.notFound, "You have no such passkey.")
        }
        await request.recordAccountEvent(ActivityEvent.Kind.passkeyRemoved, of: user.username, detail: removed.name)
        request.flash["notice"] = settings.removedMessage
        try request.redirect(to: service.pagePath)
    }
}
