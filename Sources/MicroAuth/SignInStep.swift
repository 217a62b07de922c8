import MicroCore

/// A step after the password that another plugin adds to the sign-in flow (a second factor).
/// Set with ``MicroCore/App/setSignInStep(_:file:line:)``: the flow asks whether it is due for the user whose password
/// was right, hands the browser to it, and refuses HTTP Basic credentials of a user who has it.
public protocol SignInStep: Sendable {
    /// Whether `username`, whose password was right, must pass the step before being signed in.
    func isDue(for username: String) async throws -> Bool
    /// Sends the browser on to the step for `stored` (throws the redirect); nobody is signed in.
    func begin(_ request: Request, _ stored: StoredUser) throws -> Never
    /// Whether `username` took the step on here at or after `time`: a script's credentials
    /// checked before then no longer stand without it.
    func isNew(for username: String, since time: Int64) -> Bool
    /// The answer to HTTP Basic credentials of a user who has the step.
    var basicRefusal: HttpError { get }
    /// Whether `answer` passes the step for `username`, checked as the step's own page checks
    /// it (the same throttle; a wrong answer is the user's failed sign-in).
    func prove(_ request: Request, username: String, answer: String) async throws -> Bool
    /// What a form says of an answer the step refused, beside its field.
    var wrongAnswerMessage: String { get }
}

extension SignInStep {
    /// A refused answer's words, for a step that has none of its own.
    public var wrongAnswerMessage: String { "That code is not right." }
}
