/// Ways in that ended together, for the audit (``AccountLeftovers/endAccess(of:in:features:now:)``):
/// the account event that records their removal, and how many went.
public struct EndedAccess: Sendable, Equatable {
    /// The ``ActivityEvent`` kind (``ActivityEvent/Kind/tokenRevoked``).
    public var event: String
    /// How many ended.
    public var count: Int

    /// `count` ways in of the kind `event` records.
    public init(event: String, count: Int) {
        self.event = event
        self.count = count
    }
}
