import NIOHTTP1
import NIOCore

/// A file on disk sent as a response body without loading it whole into memory.
public struct FileRegionBody: Sendable {
    /// The file's path.
    public var path: String
    /// The first byte to send.
    public var offset: Int
    /// How many bytes to send.
    public var length: Int

    /// A region of the file at `path`.
    public init(path: String, offset: Int = 0, length: Int) {
        self.path = path
        self.offset = offset
        self.length = length
    }
}
