/// The further step (``SignInStep``) a request's password check found due: the user must pass
/// it before being signed in. The step itself is kept, so that what is due is always what runs.
enum SignInStepDue: RequestStorageKey {
    typealias Value = any SignInStep
}
