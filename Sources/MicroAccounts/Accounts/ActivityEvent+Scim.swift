import MicroCore

extension ActivityEvent.Kind {
    /// The name pages show changed (the detail is the new one): a provisioning client's doing.
    public static let nameChanged = "name_changed"
}
