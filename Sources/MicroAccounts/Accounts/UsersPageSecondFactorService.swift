/// The users page's second factor (``UsersPageSecondFactor``), kept as a service of the app.
struct UsersPageSecondFactorService: Sendable {
    let factor: any UsersPageSecondFactor
}
