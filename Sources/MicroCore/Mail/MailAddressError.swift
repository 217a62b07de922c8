/// Why a text is not a ``MailAddress``, in words a form can show beside its field.
public struct MailAddressError: Error, Sendable, Equatable, CustomStringConvertible {
    /// What is wrong, as a sentence without its full stop.
    public let description: String

    init(_ description: String) { self.description = description }
}
