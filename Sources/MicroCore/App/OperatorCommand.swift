import Foundation

/// How Micro's messages to an operator name a command to run: `labtool hash-password`, by the
/// running tool's own name, once the tool has mounted Micro's commands (MicroCommands does
/// that); else what an operator of a tool without them can do instead.
public enum OperatorCommand {
    private static let mountedName = Locked<String?>(nil)

    /// Says that this process is the tool `name` and has Micro's commands: messages from here
    /// on name them as `name COMMAND`. MicroCommands calls it when a tool mounts them.
    package static func mount(as name: String) {
        mountedName.withLock { $0 = name }
    }

    /// The command line for `command` (with `arguments`) in code voice, the tool's name first
    /// (`labtool reset-two-factor NAME` between backticks); without the commands mounted,
    /// `otherwise`, what works there.
    public static func phrase(_ command: String, _ arguments: String = "", otherwise: String) -> String {
        guard let name = mountedName.withLock({ $0 }) else { return otherwise }
        return "`\(name) \(arguments.isEmpty ? command : "\(command) \(arguments)")`"
    }
}
