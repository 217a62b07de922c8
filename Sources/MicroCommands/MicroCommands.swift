import ArgumentParser
import Foundation
import Micro

/// Micro's commands for a tool's operator: `add-user`, `remove-user`, `reset-two-factor`,
/// `hash-password`, `backup`, `scim-token`, and, with single sign-on, `links` and `unlink`.
///
/// A tool with a command line of its own mounts them beside its own commands:
///
/// ```swift
/// @main
/// struct LabTool: AsyncParsableCommand {
///     static let configuration = CommandConfiguration(
///         subcommands: [Serve.self] + MicroCommands.all, defaultSubcommand: Serve.self)
/// }
/// ```
///
/// ``CommandLineTool`` gives a tool the whole command line, `serve` included, in one call.
public enum MicroCommands {
    private static let file = Locked<String?>(nil)
    private static let yaml = Locked<String?>(nil)

    /// The commands. Reading them mounts them: Micro's messages to an operator name them by
    /// the running executable's name from then on (`labtool reset-two-factor NAME`).
    public static var all: [any ParsableCommand.Type] {
        OperatorCommand.mount(as: executableName)
        var commands: [any ParsableCommand.Type] = [AddUser.self, RemoveUser.self, RenameUser.self, ResetTwoFactor.self, HashPassword.self, Backup.self, ScimTokenCommand.self]
        #if OpenIdConnect
        commands += [IdentityLinks.self, UnlinkIdentity.self]
        #endif
        return commands
    }

    /// The SQLite file the user commands change when given neither `--db` nor `--database-url`
    /// and `MICRO_DATABASE_URL` is unset: the tool's own, as it serves from. Nil (the default)
    /// makes them ask for one.
    public static var databaseFile: String? {
        get { file.withLock { $0 } }
        set { file.withLock { $0 = newValue } }
    }

    /// The YAML file a tool keeps its users in, when it does: the user commands then change no
    /// table unless told which (`--db`, `--database-url`), and say where the users are.
    public static var usersFile: String? {
        get { yaml.withLock { $0 } }
        set { yaml.withLock { $0 = newValue } }
    }

    /// The name the tool was run by: its executable's, without the folder.
    static var executableName: String {
        URL(fileURLWithPath: CommandLine.arguments.first ?? ProcessInfo.processInfo.processName).lastPathComponent
    }
}
