extension SignInThrottle.Limits {
    /// The window in whole seconds: what the throttle's timestamps count in.
    var windowSeconds: Int64 { window.components.seconds }
}
