/// A file sent in a `multipart/form-data` body.
public struct UploadedFile: Sendable {
    /// The form field's name.
    public var fieldName: String
    /// The file name the client gave.
    public var filename: String
    /// The part's content type, `application/octet-stream` when the client gave none.
    public var contentType: String
    /// The file's bytes.
    public var data: [UInt8]
}
