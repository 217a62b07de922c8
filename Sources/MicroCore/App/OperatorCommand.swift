import Foundation

/// How Micro's messages to an operator name a command to run: `labtool hash-password`, by the
/// running tool's own name, once the tool has mounted Micro's commands (MicroCommands does
/// that); else as Micro's command, which a tool without them does not have.
public enum OperatorCommand {
    private static let mountedName = Locked<String?>(nil)

    /// Says that this process is the tool `name` and has Micro's commands: messages from here
    /// on name them as `name COMMAND`. MicroCommands calls it when a tool mounts them.
    public static func mounted(as name: String) {
        mountedName.withLock { $0 = name }
    }

    /// The command line for `command` (with `arguments`), in code voice: `` `labtool
    /// reset-two-factor NAME` ``, or, without the commands mounted, `` the `reset-two-factor
    /// NAME` command of Micro's commands (MicroCommands) ``.
    package static func phrase(_ command: String, _ arguments: String = "") -> String {
        let line = arguments.isEmpty ? command : "\(command) \(arguments)"
        guard let name = mountedName.withLock({ $0 }) else { return "the `\(line)` command of Micro's commands (MicroCommands)" }
        return "`\(name) \(line)`"
    }
}
