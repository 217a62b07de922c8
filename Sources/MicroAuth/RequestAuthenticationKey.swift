import MicroCore

/// The request storage slot of the ``RequestAuthentication`` a header credential's check gave
/// (``MicroCore/Request/signIn(byCredential:as:)``).
enum RequestAuthenticationKey: RequestStorageKey {
    typealias Value = RequestAuthentication
}
