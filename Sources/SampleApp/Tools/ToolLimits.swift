/// Limits shared by the tools.
enum ToolLimits {
    /// The largest input the text tools take, in UTF-8 bytes: plenty for pasted text, small
    /// enough that a hostile post stays cheap.
    static let maximumInputBytes = 64 * 1024

    /// An error on `field` when `text` is longer than ``maximumInputBytes``.
    static func checkSize(of text: String, field: String = "input") throws(ToolError) {
        let size = text.utf8.count
        guard size <= maximumInputBytes else {
            throw ToolError(
                field: field,
                message: "The \(field) is \(size) bytes; the limit is \(maximumInputBytes) bytes (64 KiB).")
        }
    }
}
