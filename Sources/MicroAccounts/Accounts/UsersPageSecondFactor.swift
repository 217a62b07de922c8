import MicroCore

/// The second factor the users page marks beside each user who has it on ("two-factor on")
/// and lets the admin turn off for one who lost it: the module that adds the factor to the
/// sign-in flow sets it with ``MicroCore/App/setUsersPageSecondFactor(_:)``.
public protocol UsersPageSecondFactor: Sendable {
    /// The users (by enforced name) who have it on.
    func usersWithIt() async throws -> Set<String>
    /// Turns it off for `username` (an enforced name): whether it was on.
    func turnOff(for username: String) async throws -> Bool
    /// The account event of the user's that records it turned off (``ActivityEvent/Kind``).
    var turnedOffEvent: String { get }
}
