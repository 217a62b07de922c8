import MicroCore

extension Request {
    /// Whether the app has a way in beside the password (an ``ExternalSignIn``, such as single
    /// sign-on): a page that adds a user may then add one without a password.
    public var hasExternalSignIn: Bool {
        service(ExternalSignIns.self)?.list.isEmpty == false
    }
}
