/// What other plugins add to the sign-in flow, kept as a service of the app: the listeners it
/// announces its moments to, and the step it asks after a right password.
struct SignInHooks: Sendable {
    var listeners: [any SignInListener] = []
    var step: (any SignInStep)?
}
