import MicroCore

/// The further step (``SignInStep``) a request's password check found due: the user must pass
/// it before being signed in. The step itself is kept, so that what is due is always what runs.
package enum SignInStepDue: RequestStorageKey {
    package typealias Value = any SignInStep
}
