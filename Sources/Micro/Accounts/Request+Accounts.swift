extension Request {
    /// The account pages' service, when the app uses ``Accounts``.
    var accounts: AccountsService? { services.extension(AccountsService.self) }
}
