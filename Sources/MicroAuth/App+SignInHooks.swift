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
    /// users it is due for. The flow has one: the same plugin installed again replaces its own,
    /// and a step of another kind is a start-up problem rather than a silent replacement (it
    /// would turn the first one's second factor off).
    public func setSignInStep(_ step: any SignInStep, file: String = #fileID, line: UInt = #line) {
        var clash: String?
        updateService(SignInHooks()) { hooks in
            if let earlier = hooks.step, type(of: earlier) != type(of: step) {
                clash = "Two steps after the password: \(type(of: earlier)) and \(type(of: step)); the sign-in flow has one."
            } else {
                hooks.step = step
            }
        }
        if let clash { addStartupCheck("sign-in step", file: file, line: line) { _ in (problem: clash, warning: nil) } }
    }
}
