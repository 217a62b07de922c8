#if Postgres
import MicroAuth
import MicroCore

extension Authentication {
    /// Sign-in over `stores`' users, counting failed sign-ins where `stores` keeps them.
    public init(stores: AppStores) {
        self.init(users: stores.users)
        throttleStore = stores.throttleStore
    }
}
#endif
