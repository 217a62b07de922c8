import MicroCore

/// What other plugins add to the sign-in flow, kept as a service of the app: the listeners it
/// announces its moments to, and the step it asks after a right password.
package struct SignInHooks: Sendable {
    package var listeners: [any SignInListener] = []
    package var step: (any SignInStep)?

    package init() {}
}
