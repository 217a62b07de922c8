import ArgumentParser
import Micro

/// The root of a ``CommandLineTool``'s command line, named after the tool's executable.
struct ToolRootCommand: AsyncParsableCommand {
    static var configuration: CommandConfiguration {
        let tool = CommandLineTool.current.withLock { $0 }
        return CommandConfiguration(
            commandName: MicroCommands.executableName, abstract: tool?.abstract ?? "",
            subcommands: [ServeCommand.self, RoutesCommand.self] + (tool?.commands ?? []) + MicroCommands.all, defaultSubcommand: ServeCommand.self)
    }
}
