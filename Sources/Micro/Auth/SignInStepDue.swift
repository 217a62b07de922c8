/// Set on a request whose password check found a user who must pass the further step
/// (``SignInStep``) before being signed in.
enum SignInStepDue: RequestStorageKey {
    typealias Value = Bool
}
