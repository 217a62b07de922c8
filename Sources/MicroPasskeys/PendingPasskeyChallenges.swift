import MicroCore

/// The challenges a session is waiting for answers to, a few at most: a person may open the
/// sign-in page in two tabs, but a client cannot grow the session by asking for more. The
/// oldest is dropped for a new one, and expired ones are dropped as they are seen.
public struct PendingPasskeyChallenges: Sendable, Equatable, Codable {
    /// The most a session keeps.
    public static let limit = 4

    /// The session key they are kept under.
    public static let key = "_passkey_challenges"

    /// The challenges, oldest first.
    public private(set) var challenges: [PasskeyChallenge] = []

    /// None pending.
    public init() {}

    /// Keeps `challenge`, dropping expired ones and, past ``limit``, the oldest.
    public mutating func add(_ challenge: PasskeyChallenge) {
        challenges.removeAll { !$0.isLive(at: challenge.issuedAt) }
        challenges.append(challenge)
        if challenges.count > Self.limit { challenges.removeFirst(challenges.count - Self.limit) }
    }

    /// The pending challenge for `purpose` whose bytes are `bytes`, removed so that it is used
    /// once; nil, and nothing removed but expired ones, when there is none live at `now`.
    public mutating func take(_ bytes: [UInt8], for purpose: PasskeyChallenge.Purpose, at now: Int64) -> PasskeyChallenge? {
        challenges.removeAll { !$0.isLive(at: now) }
        guard let index = challenges.firstIndex(where: { $0.purpose == purpose && ConstantTime.equal($0.bytes, bytes) }) else { return nil }
        return challenges.remove(at: index)
    }
}
