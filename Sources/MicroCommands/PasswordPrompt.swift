import ArgumentParser
import Foundation

/// Reads a password: at a terminal, twice and without echo; from a pipe, one line.
enum PasswordPrompt {
    static func read() throws -> String {
        guard isatty(STDIN_FILENO) == 1 else {
            guard let line = readLine(strippingNewline: true), !line.isEmpty else {
                throw CommandFailure("No password on standard input.")
            }
            return line
        }
        let first = try readHidden(prompt: "Password: ")
        guard !first.isEmpty else { throw CommandFailure("The password is empty.") }
        let second = try readHidden(prompt: "Again: ")
        guard first == second else { throw CommandFailure("The passwords differ.") }
        return first
    }

    /// One line from the terminal with echo turned off (and restored, whatever happens).
    private static func readHidden(prompt: String) throws -> String {
        FileHandle.standardError.write(Data(prompt.utf8))
        var saved = termios()
        guard tcgetattr(STDIN_FILENO, &saved) == 0 else { throw CommandFailure("Cannot read the terminal's settings.") }
        var silent = saved
        silent.c_lflag &= ~tcflag_t(ECHO)
        tcsetattr(STDIN_FILENO, TCSAFLUSH, &silent)
        defer {
            tcsetattr(STDIN_FILENO, TCSAFLUSH, &saved)
            FileHandle.standardError.write(Data("\n".utf8))
        }
        return readLine(strippingNewline: true) ?? ""
    }
}
