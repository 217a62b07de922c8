import Foundation

/// A self-signed certificate for `localhost` and `127.0.0.1` and its key, made by Debian's
/// `openssl` in a folder of the test's (the key private, as start-up asks).
package struct TlsCertificateFiles: Sendable {
    /// The certificate's PEM file.
    package let certificate: String
    /// The key's PEM file, mode 0600.
    package let key: String

    /// `openssl` failed, in its words.
    package struct OpenSslFailed: Error, CustomStringConvertible {
        package let description: String
    }

    package init(certificate: String, key: String) {
        self.certificate = certificate
        self.key = key
    }

    /// A copy of `files` under `base` (`.crt`, `.key`).
    package init(copying files: TlsCertificateFiles, to base: String) throws {
        self.init(certificate: base + ".crt", key: base + ".key")
        try Data(contentsOf: URL(fileURLWithPath: files.certificate)).write(to: URL(fileURLWithPath: certificate))
        try Data(contentsOf: URL(fileURLWithPath: files.key)).write(to: URL(fileURLWithPath: key))
    }

    /// Makes `<name>.crt` and `<name>.key` in `folder`, valid for `days` from now.
    package init(in folder: TemporaryFolder, name: String, days: Int = 30) throws {
        certificate = folder.file("\(name).crt")
        key = folder.file("\(name).key")
        let process = Process()
        process.executableURL = URL(fileURLWithPath: "/usr/bin/openssl")
        process.arguments = [
            "req", "-x509", "-newkey", "ec", "-pkeyopt", "ec_paramgen_curve:prime256v1", "-nodes", "-days", "\(days)",
            "-subj", "/CN=localhost", "-addext", "subjectAltName=DNS:localhost,IP:127.0.0.1",
            "-keyout", key, "-out", certificate,
        ]
        let errors = Pipe()
        process.standardError = errors
        process.standardOutput = FileHandle.nullDevice
        try process.run()
        let message = errors.fileHandleForReading.readDataToEndOfFile()
        process.waitUntilExit()
        guard process.terminationStatus == 0 else {
            throw OpenSslFailed(description: "openssl req failed: " + String(decoding: message, as: UTF8.self))
        }
        guard chmod(key, 0o600) == 0 else { throw OpenSslFailed(description: "chmod \(key): \(String(cString: strerror(errno)))") }
    }

    /// Copies this pair's files over `other`'s paths, as a renewal does.
    package func replace(_ other: TlsCertificateFiles) throws {
        for (from, to) in [(certificate, other.certificate), (key, other.key)] {
            try Data(contentsOf: URL(fileURLWithPath: from)).write(to: URL(fileURLWithPath: to))
        }
    }
}
