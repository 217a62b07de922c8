import MicroAuth
import MicroCore

/// The acting admin's recent proof of who they are, which the users page's changes need
/// ("sudo mode", as GitHub has it): a cookie alone, stolen or left in a signed-in browser,
/// must not set an admin's password, turn off a second factor or add an admin, which the
/// account pages refuse without the current password and code.
///
/// A right password (and code, where the admin's second factor is on), or one of their
/// passkeys that verified the person (the passkeys page's "Confirm with a passkey"), holds for
/// ``Accounts/adminProofLifetime`` in this session. A session signed in by single sign-on has
/// no password here: its sign-in is its proof, for as long. A script's HTTP Basic
/// credentials carry the password on each request; a Bearer token proves nothing and is
/// refused.
public struct AdminProof: Sendable {
    /// The session key of the time until which the proof holds, seconds since 1970.
    static let sessionKey = "_admin_proof_until"

    /// The account pages' settings: the proof's lifetime and the refusals' words.
    public let settings: Accounts

    /// The proof under the account pages' `settings`.
    public init(settings: Accounts) {
        self.settings = settings
    }

    /// What the page's forms must ask for now: nil when the proof holds (no field), else
    /// whether a code is asked beside the password.
    public func demand(of admin: User, _ request: Request) async throws -> Demand? {
        // A script asks for no field: HTTP Basic carries the password, and any other header
        // credential is refused by the check.
        if request.isAuthenticatedByHeader || holds(request) { return nil }
        if request.signInSource != nil { return .signInAgain }
        return try await request.needsCode(toProve: admin.username) ? .passwordAndCode : .password
    }

    /// What a change must bring. Throws a `403` for a header credential other than HTTP Basic
    /// (an API token, a plugin's) and for a single sign-on session whose sign-in is too old;
    /// returns the field a wrong answer names (the admin's failed sign-in, counted by the
    /// throttle), or nil once the proof holds.
    public func check(_ admin: User, _ request: Request) async throws -> (field: String, message: String)? {
        // HTTP Basic checked the password on this request (a user with a second factor cannot
        // use it at all); any other header credential (a Bearer token, a plugin's) proves none.
        if request.isAuthenticatedByPassword { return nil }
        if request.isAuthenticatedByHeader { throw HttpError(.forbidden, settings.usersTexts.tokenRefused) }
        if holds(request) { return nil }
        if request.signInSource != nil {
            throw HttpError(.forbidden, settings.usersTexts.signInAgain)
        }
        if let wrong = try await checkAnew(admin, request) { return wrong }
        Self.note(request, lifetime: settings.adminProofLifetime.components.seconds)
        return nil
    }

    /// What turning the second factor off asks, on this request whatever the session proved
    /// before: the form's `current_password`, and its `code` where `user`'s second factor is
    /// on, checked as a sign-in is. For what adds a way in (a passkey, an API token), which a
    /// cookie copied during a proof's minutes must not do. The field a wrong answer names, or
    /// nil; notes no proof.
    public func checkAnew(_ user: User, _ request: Request) async throws -> (field: String, message: String)? {
        let proof = try await request.checkAccountProof(
            username: user.username, password: request.params["current_password"] ?? "", code: request.params["code"] ?? "")
        switch proof {
        case .proven: return nil
        case .wrongPassword: return ("current_password", settings.wrongPasswordMessage)
        case .wrongCode: return ("code", request.signInStep?.wrongAnswerMessage ?? "")
        }
    }

    /// Whether this session proved its admin recently: by a right answer, or (single sign-on)
    /// by its sign-in, which ``AccountsService/signedIn(_:user:detail:)`` notes.
    private func holds(_ request: Request) -> Bool {
        let now = request.session.now
        guard let until = request.session[Self.sessionKey].flatMap(Int64.init) else { return false }
        return now < until && until - now <= settings.adminProofLifetime.components.seconds
    }

    /// Notes a proof made now, holding for `lifetime` seconds: a right answer, or a sign-in by
    /// single sign-on. Only once the admin proved who they are on this request: until it
    /// lapses, the users page's changes ask nothing more of this session.
    public static func note(_ request: Request, lifetime: Int64) {
        request.session[sessionKey] = String(request.session.now + lifetime)
    }

    /// What the forms ask for while the proof does not hold.
    public enum Demand: Sendable {
        /// The current password.
        case password
        /// The current password and the code of the second factor.
        case passwordAndCode
        /// A single sign-on session past its proof: the admin signs in again.
        case signInAgain
    }
}
