import MicroCore

extension SignInThrottle.Limits {
    /// The window in whole seconds: what the throttle's timestamps count in.
    public var windowSeconds: Int64 { window.components.seconds }
}
