import CQrEncode
import MicroAuth
import MicroCore

/// A QR code of a text, made by libqrencode and drawn as inline SVG: paths with presentation
/// attributes only (no `style`), so that the page's Content-Security-Policy holds.
enum QrCodeSvg {
    /// The modules of a code: `width` × `width`, row by row, true for dark.
    struct Matrix: Sendable {
        let version: Int
        let width: Int
        let dark: [Bool]
    }

    /// The blank modules drawn around the code, as the standard asks.
    static let quietZone = 4

    /// The code of `text` (byte mode, error correction level M, the smallest version that
    /// holds it); nil when it is too long for any.
    static func matrix(_ text: String) -> Matrix? {
        guard let code = QRcode_encodeString8bit(text, 0, QR_ECLEVEL_M) else { return nil }
        defer { QRcode_free(code) }
        let width = Int(code.pointee.width)
        // libqrencode's bit 0 of each byte is the module's colour.
        let dark = (0..<width * width).map { code.pointee.data[$0] & 1 == 1 }
        return Matrix(version: Int(code.pointee.version), width: width, dark: dark)
    }

    /// `matrix` as an SVG element: one path of unit squares, one per dark module.
    static func svg(_ matrix: Matrix, label: String = "QR code") -> String {
        let size = matrix.width + 2 * quietZone
        var path = ""
        path.reserveCapacity(matrix.dark.count * 8)
        for row in 0..<matrix.width {
            for column in 0..<matrix.width where matrix.dark[row * matrix.width + column] {
                path += "M\(column + quietZone) \(row + quietZone)h1v1h-1z"
            }
        }
        return "<svg class=\"qr-code\" xmlns=\"http://www.w3.org/2000/svg\" viewBox=\"0 0 \(size) \(size)\" width=\"\(size * 5)\" height=\"\(size * 5)\""
            + " role=\"img\" aria-label=\"\(label)\" shape-rendering=\"crispEdges\">"
            + "<rect width=\"\(size)\" height=\"\(size)\" fill=\"#fff\"/><path fill=\"#000\" d=\"\(path)\"/></svg>"
    }

    /// The SVG of `text`'s code; nil when it is too long for one.
    static func make(_ text: String) -> String? {
        matrix(text).map { svg($0) }
    }
}
