import NIOHTTP1
import NIOCore

/// The body of a ``Response``.
public enum ResponseBody: Sendable {
    /// No body.
    case empty
    /// Bytes held in memory.
    case bytes(ByteBuffer)
    /// A region of a file, streamed from disk when the response is written.
    case file(FileRegionBody)

    /// The number of bytes the body holds.
    public var count: Int {
        switch self {
        case .empty: 0
        case .bytes(let buffer): buffer.readableBytes
        case .file(let file): file.length
        }
    }
}
