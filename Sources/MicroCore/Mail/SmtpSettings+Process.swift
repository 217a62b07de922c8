import Foundation

extension SmtpSettings {
    /// The settings of `MICRO_SMTP_URL` (`smtp://HOST:PORT`, `smtp+starttls://HOST:PORT` or
    /// `smtps://HOST:PORT`, with an optional `LOGIN:PASSWORD@`, percent-encoded), with
    /// `MICRO_SMTP_PASSWORD_FILE` (the password in a file instead of the URL),
    /// `MICRO_SMTP_CA_FILE` (a PEM of the CAs to trust instead of the system's) and
    /// `MICRO_MAIL_FROM` (`tools@example.com` or `Lab Tools <tools@example.com>`, needed with the
    /// URL); nil when `MICRO_SMTP_URL` is not set. A bad value throws an error naming its variable.
    ///
    /// ```swift
    /// if let smtp = try SmtpSettings.fromProcess(app.settings.variables) {
    ///     let mail = MailQueue(mailer: try SmtpMailer(settings: smtp))
    /// }
    /// ```
    public static func fromProcess(_ variables: [String: String]) throws(ConfigurationError) -> SmtpSettings? {
        func value(_ name: String) -> String? { variables[name].flatMap { $0.isEmpty ? nil : $0 } }
        guard let raw = value("MICRO_SMTP_URL") else {
            for name in ["MICRO_SMTP_PASSWORD_FILE", "MICRO_SMTP_CA_FILE", "MICRO_MAIL_FROM"] where value(name) != nil {
                throw ConfigurationError("\(name) is set without MICRO_SMTP_URL; set the mail server's URL too (smtp+starttls://mail.example.com:587), or unset \(name).")
            }
            return nil
        }
        let url = try SmtpUrl(raw)
        guard let fromText = value("MICRO_MAIL_FROM") else {
            throw ConfigurationError("MICRO_SMTP_URL is set but MICRO_MAIL_FROM is not: set the address mail is sent from, such as 'Lab Tools <tools@example.com>'.")
        }
        let (fromName, from) = try sender(fromText)
        var settings = SmtpSettings(
            host: url.host, port: url.port, security: url.security, from: from, fromName: fromName, login: url.login, password: url.password,
            certificateAuthorityFile: value("MICRO_SMTP_CA_FILE"))
        if let file = value("MICRO_SMTP_PASSWORD_FILE") {
            guard url.password == nil else {
                throw ConfigurationError("MICRO_SMTP_URL holds a password and MICRO_SMTP_PASSWORD_FILE is set; set one.")
            }
            guard url.login != nil else {
                throw ConfigurationError("MICRO_SMTP_PASSWORD_FILE is set but MICRO_SMTP_URL names no login: smtp+starttls://LOGIN@HOST.")
            }
            settings.password = try password(in: file)
        }
        if let problem = settings.problem() { throw ConfigurationError(problem) }
        if settings.certificateAuthorityFile != nil { _ = try settings.trustRoots() }
        return settings
    }

    /// `Name <address>`, `"Name" <address>` or the address alone.
    private static func sender(_ text: String) throws(ConfigurationError) -> (name: String?, address: MailAddress) {
        var name: String?
        var addressText = text.trimmingSpaces()
        if addressText.hasSuffix(">"), let open = addressText.lastIndex(of: "<") {
            var display = addressText[..<open].trimmingSpaces()
            if display.count >= 2, display.hasPrefix("\""), display.hasSuffix("\"") { display = String(display.dropFirst().dropLast()) }
            name = display.isEmpty ? nil : display
            addressText = String(addressText[addressText.index(after: open)..<addressText.index(before: addressText.endIndex)])
        }
        if let name, MailMessage.headerText(name) != name {
            throw ConfigurationError("MICRO_MAIL_FROM has a name with a control character or spaces around it.")
        }
        do { return (name, try MailAddress(addressText)) } catch {
            throw ConfigurationError("MICRO_MAIL_FROM: \(error.description); expected an address such as tools@example.com, or 'Lab Tools <tools@example.com>'.")
        }
    }

    /// The contents of `file`, without the line end at its end.
    private static func password(in file: String) throws(ConfigurationError) -> String {
        let data: Data
        do { data = try Data(contentsOf: URL(fileURLWithPath: file)) } catch {
            throw ConfigurationError("MICRO_SMTP_PASSWORD_FILE: cannot read \(file) (\(error.localizedDescription)).")
        }
        var password = String(decoding: data, as: UTF8.self)
        // By scalar: "\r\n" is one Character, which neither "\n" nor "\r" is a suffix of.
        while let last = password.unicodeScalars.last, last == "\n" || last == "\r" { password.unicodeScalars.removeLast() }
        guard !password.isEmpty else { throw ConfigurationError("MICRO_SMTP_PASSWORD_FILE: \(file) is empty.") }
        return password
    }
}
