import Foundation

/// A field that did not decode, with the message for it.
struct FormFieldProblem: Error {
    var field: String
    var message: String
}
