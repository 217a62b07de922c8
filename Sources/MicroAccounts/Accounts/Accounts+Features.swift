import MicroCore

extension Accounts {
    /// The database the account pages keep their state in (``init(database:features:)``), for
    /// a feature's own tables; nil when they keep it in memory.
    public var database: Database? { (sessions as? DatabaseSessionRegistry)?.database }

    /// The feature of type `type` among ``features``, if the pages have it.
    public func feature<Feature: AccountFeature>(_ type: Feature.Type) -> Feature? {
        features.lazy.compactMap { $0 as? Feature }.first
    }

    /// Puts `feature` among ``features``, in place of one of its type if there is one, else last:
    /// what a feature's settings property on `Accounts` sets (`accounts.twoFactor.issuer = ...`).
    public mutating func setFeature<Feature: AccountFeature>(_ feature: Feature) {
        if let index = features.firstIndex(where: { $0 is Feature }) {
            features[index] = feature
        } else {
            features.append(feature)
        }
    }
}
