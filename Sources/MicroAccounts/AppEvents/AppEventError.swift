/// An app event the app's code got wrong: a kind that is empty, too long or has other
/// characters than letters, digits, `_`, `-` and `.`; a subject or detail too long. Nothing is
/// recorded.
public struct AppEventError: Error, CustomStringConvertible, Sendable {
    /// What is wrong, naming the field and its bound.
    public let message: String

    /// The message.
    public var description: String { message }

    /// Checks `kind`, `subject` and `detail` against ``AppEventLimits``.
    static func check(kind: String, subject: String, detail: String) throws(AppEventError) {
        guard !kind.isEmpty, kind.unicodeScalars.count <= AppEventLimits.kindLength,
            kind.unicodeScalars.allSatisfy({ $0.isASCII && ($0.properties.isAlphabetic || ("0"..."9").contains($0) || "_-.".unicodeScalars.contains($0)) })
        else {
            throw AppEventError(
                message: "An app event's kind is 1 to \(AppEventLimits.kindLength) ASCII letters, digits, '_', '-' or '.': '\(kind.prefix(80))' is not.")
        }
        let subjectLength = subject.unicodeScalars.count, detailLength = detail.unicodeScalars.count
        guard subjectLength <= AppEventLimits.subjectLength else {
            throw AppEventError(
                message: "The subject of the app event '\(kind)' has \(subjectLength) characters (Unicode scalars); at most \(AppEventLimits.subjectLength).")
        }
        guard detailLength <= AppEventLimits.detailLength else {
            throw AppEventError(
                message: "The detail of the app event '\(kind)' has \(detailLength) characters (Unicode scalars); at most \(AppEventLimits.detailLength).")
        }
    }
}
