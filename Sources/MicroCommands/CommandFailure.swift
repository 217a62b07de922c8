/// Why a command could not do its work once its arguments were right (a weak password, a
/// database out of reach): printed as one line, without the usage, with a non-zero status.
struct CommandFailure: Error, CustomStringConvertible {
    let description: String

    init(_ description: String) {
        self.description = description
    }
}
