import MicroAccounts

extension TwoFactorStore: UsersPageSecondFactor {
    func usersWithIt() async throws -> Set<String> { try await enabledUsers() }

    func turnOff(for username: String) async throws -> Bool { try await disable(username) }

    var turnedOffEvent: String { ActivityEvent.Kind.twoFactorDisabled }
}
