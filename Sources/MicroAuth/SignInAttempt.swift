/// What one throttled sign-in attempt (``MicroCore/Request/signInAttempt(username:_:)``)
/// found, set by its check: how it ends for the throttle, and whose failure it is.
public struct SignInAttempt: Sendable {
    /// How the attempt ends for the throttle: a failure until the check finds a right answer
    /// (`.success`), or finds it could check nothing (`.unchecked`: a store that failed).
    public var outcome: SignInThrottle.Outcome = .failure
    /// Whose failed sign-in a failure is recorded as: nil (nobody's: an unknown user's, never
    /// the text typed) until the check sets the name of a user the store holds.
    public var failedUser: String?
    /// Whether a failure is told to the sign-in flow's listeners as a failed sign-in; not for
    /// input refused before anything read it.
    public var announcesFailure = true

    init() {}
}
