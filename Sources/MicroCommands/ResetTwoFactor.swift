import ArgumentParser
import Foundation
import Micro

/// Turns two-factor sign-in off for a user who lost their phone and recovery codes.
struct ResetTwoFactor: UserCommand {
    static let configuration = CommandConfiguration(
        commandName: "reset-two-factor",
        abstract: "Turn two-factor sign-in off for a user (lost phone and recovery codes, or a lost MICRO_DATA_KEY); their password alone signs them in again.")

    @Argument(help: "The username (case-insensitive).")
    var username: String

    @OptionGroup var database: UserDatabaseOptions

    func act(on key: String, in table: CommandUserTable) async throws {
        try await table.requireUser(key)
        let turnedOff = try await table.withDatabase { database in try await TwoFactorReset.reset(key, in: database, detail: "reset by command") }
        print(turnedOff ? "Two-factor sign-in is off for '\(key)'." : "'\(key)' did not have two-factor sign-in on.")
    }
}
