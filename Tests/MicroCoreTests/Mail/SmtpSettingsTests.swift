import Foundation
@testable import MicroCore
import MicroTestSupport
import Testing

@Suite struct SmtpSettingsTests {
    static let from = ["MICRO_MAIL_FROM": "Lab Tools <tools@example.com>"]

    func settings(_ variables: [String: String]) throws -> SmtpSettings? {
        try SmtpSettings.fromProcess(variables)
    }

    /// The message of the error `variables` throw.
    func problem(_ variables: [String: String]) -> String {
        do {
            _ = try SmtpSettings.fromProcess(variables)
            return "no error"
        } catch {
            return error.message
        }
    }

    @Test func noUrlIsNoMail() throws {
        #expect(try settings([:]) == nil)
        #expect(try settings(["MICRO_SMTP_URL": ""]) == nil)
    }

    @Test func eachSchemeHasItsSecurityAndDefaultPort() throws {
        let plain = try #require(try settings(["MICRO_SMTP_URL": "smtp://relay.example.com"].merging(Self.from) { $1 }))
        #expect(plain.security == .plain)
        #expect(plain.port == 25)
        #expect(plain.host == "relay.example.com")
        #expect(plain.login == nil && plain.password == nil)
        let startTls = try #require(try settings(["MICRO_SMTP_URL": "smtp+starttls://mail.example.com"].merging(Self.from) { $1 }))
        #expect(startTls.security == .startTls)
        #expect(startTls.port == 587)
        let tls = try #require(try settings(["MICRO_SMTP_URL": "SMTPS://mail.example.com:2465/"].merging(Self.from) { $1 }))
        #expect(tls.security == .implicitTls)
        #expect(tls.port == 2465)
        let v6 = try #require(try settings(["MICRO_SMTP_URL": "smtp://[::1]:2525"].merging(Self.from) { $1 }))
        #expect(v6.host == "::1")
        #expect(v6.port == 2525)
        #expect(v6.isLoopback)
    }

    @Test func theLoginAndPasswordArePercentDecoded() throws {
        let smtp = try #require(try settings(["MICRO_SMTP_URL": "smtp+starttls://tools%40example.com:p%40ss%3Aw%2Fo@mail.example.com:587"].merging(Self.from) { $1 }))
        #expect(smtp.login == "tools@example.com")
        #expect(smtp.password == "p@ss:w/o")
        #expect(smtp.description == "smtp+starttls://tools@example.com@mail.example.com:587")
        #expect(!"\(smtp)".contains("p@ss"))
    }

    @Test func theSenderMayHaveAName() throws {
        let url = ["MICRO_SMTP_URL": "smtp://localhost"]
        let named = try #require(try settings(url.merging(["MICRO_MAIL_FROM": "Lab Tools <tools@example.com>"]) { $1 }))
        #expect(named.from == (try MailAddress("tools@example.com")))
        #expect(named.fromName == "Lab Tools")
        let quoted = try #require(try settings(url.merging(["MICRO_MAIL_FROM": "\"Lab, Tools\" <tools@example.com>"]) { $1 }))
        #expect(quoted.fromName == "Lab, Tools")
        let bare = try #require(try settings(url.merging(["MICRO_MAIL_FROM": "tools@example.com"]) { $1 }))
        #expect(bare.fromName == nil)
        #expect(bare.from.text == "tools@example.com")
    }

    @Test func thePasswordMayComeFromAFile() throws {
        let folder = try TemporaryFolder(["password": "s3cret pass\r\n", "empty": "\n"])
        defer { folder.remove() }
        let url = ["MICRO_SMTP_URL": "smtps://tools@mail.example.com"].merging(Self.from) { $1 }
        let smtp = try #require(try settings(url.merging(["MICRO_SMTP_PASSWORD_FILE": folder.file("password")]) { $1 }))
        #expect(smtp.password == "s3cret pass")
        #expect(problem(url.merging(["MICRO_SMTP_PASSWORD_FILE": folder.file("empty")]) { $1 }) == "MICRO_SMTP_PASSWORD_FILE: \(folder.file("empty")) is empty.")
        #expect(problem(url.merging(["MICRO_SMTP_PASSWORD_FILE": folder.file("missing")]) { $1 }).hasPrefix("MICRO_SMTP_PASSWORD_FILE: cannot read \(folder.file("missing"))"))
        #expect(problem(["MICRO_SMTP_URL": "smtps://tools:inline@mail.example.com", "MICRO_SMTP_PASSWORD_FILE": folder.file("password")].merging(Self.from) { $1 })
            == "MICRO_SMTP_URL holds a password and MICRO_SMTP_PASSWORD_FILE is set; set one.")
        #expect(problem(["MICRO_SMTP_URL": "smtps://mail.example.com", "MICRO_SMTP_PASSWORD_FILE": folder.file("password")].merging(Self.from) { $1 })
            == "MICRO_SMTP_PASSWORD_FILE is set but MICRO_SMTP_URL names no login: smtp+starttls://LOGIN@HOST.")
    }

    @Test func theCaFileIsReadAtOnce() throws {
        let folder = try TemporaryFolder(["not-pem": "hello\n"])
        defer { folder.remove() }
        let certificate = try TlsCertificateFiles(in: folder, name: "ca")
        let url = ["MICRO_SMTP_URL": "smtp+starttls://mail.example.com"].merging(Self.from) { $1 }
        let smtp = try #require(try settings(url.merging(["MICRO_SMTP_CA_FILE": certificate.certificate]) { $1 }))
        #expect(smtp.certificateAuthorityFile == certificate.certificate)
        #expect(problem(url.merging(["MICRO_SMTP_CA_FILE": folder.file("missing.pem")]) { $1 })
            == "MICRO_SMTP_CA_FILE \(folder.file("missing.pem")): cannot be read (No such file or directory).")
        #expect(problem(url.merging(["MICRO_SMTP_CA_FILE": folder.file("not-pem")]) { $1 }).hasPrefix("MICRO_SMTP_CA_FILE \(folder.file("not-pem")): "))
        #expect(problem(["MICRO_SMTP_URL": "smtp://mail.example.com", "MICRO_SMTP_CA_FILE": certificate.certificate].merging(Self.from) { $1 })
            == "MICRO_SMTP_CA_FILE is set but MICRO_SMTP_URL is smtp://, which uses no TLS: use smtp+starttls:// or smtps://, or unset MICRO_SMTP_CA_FILE.")
    }

    @Test(arguments: [
        ("smtp://tools:secret@mail.example.com", true), ("smtp://tools:secret@localhost:2525", false),
        ("smtp://tools:secret@127.0.0.1", false), ("smtp://tools:secret@[::1]", false), ("smtp://tools:secret@10.0.0.5", true),
        ("smtp+starttls://tools:secret@mail.example.com", false), ("smtps://tools:secret@mail.example.com", false),
    ])
    func aPasswordGoesOnlyOverTlsOrToThisMachine(url: String, refused: Bool) {
        let message = problem(["MICRO_SMTP_URL": url].merging(Self.from) { $1 })
        if refused {
            #expect(message.contains("the password would cross the network unencrypted. Use smtp+starttls:// or smtps://."))
            #expect(!message.contains("secret"))
        } else {
            #expect(message == "no error")
        }
    }

    @Test func settingsMadeInCodeAreCheckedByTheMailer() throws {
        let smtp = SmtpSettings(host: "mail.example.com", security: .plain, from: try MailAddress("tools@example.com"), login: "tools", password: "secret")
        #expect(throws: ConfigurationError.self) { try SmtpMailer(settings: smtp) }
        var tls = smtp
        tls.security = .startTls
        tls.port = 587
        _ = try SmtpMailer(settings: tls)
    }

    @Test(arguments: [
        ("mail.example.com", "MICRO_SMTP_URL is not a URL; expected smtp://, smtp+starttls:// or smtps:// and a host, such as smtp+starttls://mail.example.com:587."),
        ("https://mail.example.com", "MICRO_SMTP_URL has the scheme 'https'; expected smtp://, smtp+starttls:// or smtps://, such as smtp+starttls://mail.example.com:587."),
        ("smtp://", "MICRO_SMTP_URL: the host is missing, such as smtp+starttls://mail.example.com:587."),
        ("smtp://mail.example.com:0", "MICRO_SMTP_URL has the port '0'; expected a number from 1 to 65535."),
        ("smtp://mail.example.com:smtp", "MICRO_SMTP_URL has the port 'smtp'; expected a number from 1 to 65535."),
        ("smtp://mail.example.com:70000", "MICRO_SMTP_URL has the port '70000'; expected a number from 1 to 65535."),
        ("smtp://mail.example.com/relay", "MICRO_SMTP_URL has a path, query or fragment; expected only a host and port, such as smtp+starttls://mail.example.com:587."),
        ("smtp://mail.example.com?tls=1", "MICRO_SMTP_URL has a path, query or fragment; expected only a host and port, such as smtp+starttls://mail.example.com:587."),
        ("smtp://mail_relay.example.com", "MICRO_SMTP_URL: the host 'mail_relay.example.com' is not a host name or IP address, such as smtp+starttls://mail.example.com:587."),
        ("smtp://[::1", "MICRO_SMTP_URL has an IPv6 address without its closing ']'."),
        ("smtp://[::1]x", "MICRO_SMTP_URL has 'x' after its IPv6 address; expected :PORT."),
        ("smtps://:secret@mail.example.com", "MICRO_SMTP_URL has a login that is empty or badly percent-encoded (%XX)."),
        ("smtps://to%zzols:secret@mail.example.com", "MICRO_SMTP_URL has a login that is empty or badly percent-encoded (%XX)."),
        ("smtps://tools:se%zzcret@mail.example.com", "MICRO_SMTP_URL has a password that is badly percent-encoded (%XX)."),
        ("smtps://tools@mail.example.com", "MICRO_SMTP_URL names the login 'tools' without a password: add it (smtp+starttls://LOGIN:PASSWORD@HOST) or set MICRO_SMTP_PASSWORD_FILE."),
    ])
    func aBadUrlIsNamedWithWhatIsWrong(url: String, expected: String) {
        #expect(problem(["MICRO_SMTP_URL": url].merging(Self.from) { $1 }) == expected)
    }

    @Test func noErrorRepeatsThePassword() {
        for url in ["smtp://tools:hunter2@mail.example.com:99999", "smtp://tools:hunter2@mail_x.com", "ftp://tools:hunter2@x.com", "smtp://tools:hunter2@x.com/path"] {
            let message = problem(["MICRO_SMTP_URL": url].merging(Self.from) { $1 })
            #expect(message != "no error")
            #expect(!message.contains("hunter2"), "\(message)")
        }
    }

    @Test func theSenderIsNeededAndChecked() {
        let url = ["MICRO_SMTP_URL": "smtp://localhost"]
        #expect(problem(url) == "MICRO_SMTP_URL is set but MICRO_MAIL_FROM is not: set the address mail is sent from, such as 'Lab Tools <tools@example.com>'.")
        #expect(problem(url.merging(["MICRO_MAIL_FROM": "Lab Tools <tools>"]) { $1 }) == "MICRO_MAIL_FROM: an email address has the form name@domain, with one '@'; expected an address such as tools@example.com, or 'Lab Tools <tools@example.com>'.")
        #expect(problem(url.merging(["MICRO_MAIL_FROM": "tools@example.com\r\nBcc: eve@example.com"]) { $1 }).hasPrefix("MICRO_MAIL_FROM: an email address cannot hold a control character"))
        #expect(problem(url.merging(["MICRO_MAIL_FROM": "Lab\u{1B}Tools <tools@example.com>"]) { $1 }) == "MICRO_MAIL_FROM has a name with a control character or spaces around it.")
    }

    @Test(arguments: ["MICRO_SMTP_PASSWORD_FILE", "MICRO_SMTP_CA_FILE", "MICRO_MAIL_FROM"])
    func aCompanionWithoutTheUrlIsAMistake(name: String) {
        #expect(problem([name: "/some/value"]) == "\(name) is set without MICRO_SMTP_URL; set the mail server's URL too (smtp+starttls://mail.example.com:587), or unset \(name).")
    }
}
