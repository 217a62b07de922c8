import Foundation

/// Whether a browser shows a file it receives (`inline`) or saves it (`attachment`): the
/// `Content-Disposition` header (RFC 6266).
public enum ContentDisposition: String, Sendable {
    /// Shown in the browser when it can (an image, a PDF); saved under the file name otherwise.
    case inline
    /// Saved as a download, under the file name.
    case attachment

    /// The header's value, with `filename` made safe: `attachment; filename="report.pdf"`, and
    /// for a name that is not plain ASCII an ASCII stand-in followed by the name itself in
    /// RFC 8187's form (`filename*=UTF-8''r%C3%A9sum%C3%A9.pdf`), which every current browser
    /// prefers. ``Request/sendFile(_:in:filename:disposition:contentType:)`` sets it for you;
    /// this is for a response built by hand.
    ///
    /// ```swift
    /// response.headers.replaceOrAdd(
    ///     name: "Content-Disposition", value: ContentDisposition.attachment.headerValue(filename: "Résumé.pdf"))
    /// // attachment; filename="Resume.pdf"; filename*=UTF-8''R%C3%A9sum%C3%A9.pdf
    /// ```
    public func headerValue(filename: String?) -> String {
        guard let filename else { return rawValue }
        let name = Self.safeName(filename)
        let fallback = Self.asciiFallback(name)
        var value = rawValue + "; filename=\"" + fallback + "\""
        if fallback != name { value += "; filename*=UTF-8''" + Self.percentEncoded(name) }
        return value
    }

    /// The name with nothing a browser would take for a folder or misread: `/` and `\`,
    /// control characters (CR, LF, NUL, ...), format characters (the bidirectional overrides
    /// that show `exe.pdf` for `fdp.exe`, zero-width characters) and line separators each
    /// become `_`. Spaces at either end are dropped; nothing left gives `download`.
    static func safeName(_ name: String) -> String {
        var scalars = String.UnicodeScalarView()
        for scalar in name.unicodeScalars {
            switch scalar.properties.generalCategory {
            case .control, .format, .lineSeparator, .paragraphSeparator, .privateUse, .surrogate, .unassigned:
                scalars.append("_")
            default:
                scalars.append(scalar == "/" || scalar == "\\" ? "_" : scalar)
            }
        }
        let trimmed = String(scalars).trimmingCharacters(in: .whitespaces)
        return trimmed.isEmpty ? "download" : trimmed
    }

    /// The name in printable ASCII for the quoted `filename=`: letters lose their accents
    /// (compatibility decomposition, combining marks dropped), other characters become `_`,
    /// and so do `"`, `\`, `/` (a fullwidth slash decomposes to one), `%` (which some
    /// browsers decode there) and `;` (for parsers that split parameters before quotes).
    static func asciiFallback(_ name: String) -> String {
        var scalars = String.UnicodeScalarView()
        for scalar in name.decomposedStringWithCompatibilityMapping.unicodeScalars {
            if scalar.properties.generalCategory == .nonspacingMark { continue }
            let printable = scalar.value >= 0x20 && scalar.value < 0x7F
            scalars.append(printable && !"\"\\/%;".unicodeScalars.contains(scalar) ? scalar : "_")
        }
        let fallback = String(scalars).trimmingCharacters(in: .whitespaces)
        return fallback.isEmpty ? "download" : fallback
    }

    /// RFC 8187's value characters: every other byte of the UTF-8 is written `%XX`.
    static func percentEncoded(_ name: String) -> String {
        let hex = Array("0123456789ABCDEF".utf8)
        var out: [UInt8] = []
        for byte in name.utf8 {
            switch byte {
            case UInt8(ascii: "a")...UInt8(ascii: "z"), UInt8(ascii: "A")...UInt8(ascii: "Z"), UInt8(ascii: "0")...UInt8(ascii: "9"):
                out.append(byte)
            case _ where "!#$&+-.^_`|~".utf8.contains(byte):
                out.append(byte)
            default:
                out += [UInt8(ascii: "%"), hex[Int(byte >> 4)], hex[Int(byte & 15)]]
            }
        }
        return String(decoding: out, as: UTF8.self)
    }
}
