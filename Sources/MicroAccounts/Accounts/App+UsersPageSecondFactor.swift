import MicroCore

extension App {
    /// Sets the second factor the users page shows and turns off (``UsersPageSecondFactor``):
    /// one, as the sign-in flow has one further step.
    public func setUsersPageSecondFactor(_ factor: any UsersPageSecondFactor) {
        register(UsersPageSecondFactorService(factor: factor))
    }
}
