import MicroCore

extension Request {
    /// What other plugins added to the sign-in flow; nothing where none did.
    var signInHooks: SignInHooks { services.service(SignInHooks.self) ?? SignInHooks() }

    /// Tells each listener of the sign-in flow of a moment, in the order they were added.
    package func announce(_ moment: (any SignInListener) async -> Void) async {
        for listener in signInHooks.listeners { await moment(listener) }
    }
}
