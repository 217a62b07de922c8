import MicroAuth
import MicroCore

extension Request {
    /// The account pages' service, when the app uses ``Accounts``.
    var accounts: AccountsService? { service(AccountsService.self) }
}
