import MicroCore

extension Services {
    /// The sign-in metrics ``Authentication`` made when the app was built; counters that
    /// record nothing where it made none.
    var signInMetrics: SignInMetrics { service(SignInMetrics.self) ?? .none }
}
