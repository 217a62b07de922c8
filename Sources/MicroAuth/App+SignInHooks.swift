import MicroCore

extension App {
    /// Adds `listener` to the sign-in flow: it hears each sign-in, failure, lockout, sign-out
    /// and end of a user's sessions, after the listeners added before it. One listener per
    /// type: a plugin installed again replaces its own rather than adding a second.
    public func addSignInListener(_ listener: any SignInListener) {
        updateService(SignInHooks()) { hooks in
            hooks.listeners.removeAll { type(of: $0) == type(of: listener) }
            hooks.listeners.append(listener)
        }
    }

    /// Sets the step after a right password (a second factor) that the sign-in flow asks for
    /// users it is due for. The flow has one: a second replaces the first.
    public func setSignInStep(_ step: any SignInStep) {
        updateService(SignInHooks()) { $0.step = step }
    }
}
