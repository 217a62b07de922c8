import ArgumentParser
import Micro

/// The sample app's entry point: serve (the default), hash a password, add a user.
@main
struct SampleAppCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "SampleApp",
        abstract: "Micro's sample app: engineering utilities behind sign-in.",
        subcommands: [Serve.self, HashPassword.self, AddUser.self, RemoveUser.self, ResetTwoFactor.self, IdentityLinks.self, UnlinkIdentity.self],
        defaultSubcommand: Serve.self)
}
