import MicroCore

/// The request storage slot of ``Request/isAuthenticatedByPassword``: set only where HTTP Basic
/// credentials were checked, so that a plugin's own header credential never counts as one.
enum PasswordInHeaderKey: RequestStorageKey {
    typealias Value = Bool
}
