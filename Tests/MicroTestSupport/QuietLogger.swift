import Logging

package extension Logger {
    /// The tests' apps log nothing: the errors that tests provoke on purpose would otherwise
    /// fill the output of a passing run. Tests that check a message use a `LogRecorder`.
    static let quietForTests = Logger(label: "micro.test") { _ in SwiftLogNoOpLogHandler() }
}
