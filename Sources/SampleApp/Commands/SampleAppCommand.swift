import ArgumentParser
import Micro
import MicroCommands

/// The sample app's entry point: serve (the default), its pipeline (`routes`), and Micro's commands.
@main
struct SampleAppCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "SampleApp",
        abstract: "Micro's sample app: engineering utilities behind sign-in.",
        subcommands: [Serve.self, Routes.self] + MicroCommands.all,
        defaultSubcommand: Serve.self)
}
