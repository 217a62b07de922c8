import MicroCore

extension Accounts {
    /// SCIM 2.0 provisioning (``ScimProvisioning``), nil (the default) when off: a company's
    /// identity provider adds, disables and removes users at `/scim/v2`.
    public var scim: ScimProvisioning? {
        get { feature(ScimProvisioning.self) }
        set {
            if let newValue { setFeature(newValue) } else { features.removeAll { $0 is ScimProvisioning } }
        }
    }
}
