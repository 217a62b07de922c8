import MicroCore

/// What a users table's store keeps in memory of the table: each user's stamp, which signed-in
/// requests are checked against, and the costs of the hashes, which a refusal is made to cost.
public struct UserSummary: Sendable {
    /// The median cost of the hashes.
    public private(set) var cost: Int?
    /// The highest cost of the hashes.
    public private(set) var slowestCost: Int?
    /// How many users the last full reading found.
    public private(set) var users = 0
    /// Each enabled user's stamp, by enforced name.
    public private(set) var stamps: [String: CredentialStamp] = [:]
    private var costs: [String: Int] = [:]
    /// How many times each name was ``set(_:_:keepingMedian:)``: a reading begun before the
    /// count moved is older than what was set since.
    private var versions: [String: Int] = [:]

    /// Nothing read yet.
    public init() {}

    /// What a full reading of the table found.
    public init(_ found: [StoredUser]) {
        users = found.count
        for user in found {
            stamps[user.user.username] = CredentialStamp.current(of: user)
            costs[user.user.username] = Password.cost(of: user.enabledHash)
        }
        summarizeCosts()
    }

    /// What the table now holds for the enforced `name` (nil: no such user). The costs are
    /// summed up again when the user's changed, so that a refusal keeps costing what a check
    /// at the slowest cost does whoever added or changed a user, and however; the median too
    /// unless `keepingMedian` (it is then the median of the last full reading).
    public mutating func set(_ name: String, _ user: StoredUser?, keepingMedian: Bool = false) {
        versions[name, default: 0] &+= 1
        stamps[name] = CredentialStamp.current(of: user)
        let userCost = user.flatMap { Password.cost(of: $0.enabledHash) }
        guard costs[name] != userCost else { return }
        costs[name] = userCost
        summarizeCosts(keepingMedian: keepingMedian)
    }

    /// Where `name`'s count stands now, for a reading about to begin.
    public func version(of name: String) -> Int { versions[name, default: 0] }

    /// What a reading begun at `version` found, unless `name` was set since: the change that
    /// set it was read after it was made, so it is at least as new, and any newer change
    /// brings a reading of its own (a database notification).
    public mutating func set(_ name: String, _ user: StoredUser?, readAt version: Int) {
        guard versions[name, default: 0] == version else { return }
        set(name, user)
    }

    private mutating func summarizeCosts(keepingMedian: Bool = false) {
        let sorted = costs.values.sorted()
        if !keepingMedian { cost = sorted.isEmpty ? nil : sorted[sorted.count / 2] }
        slowestCost = sorted.last
    }
}
