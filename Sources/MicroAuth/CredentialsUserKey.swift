import MicroCore

/// The request storage slot of ``Request/credentialsUser``.
enum CredentialsUserKey: RequestStorageKey {
    typealias Value = User
}
