extension SmtpMailer {
    /// RFC 5321's conversation for one message, up to its `QUIT`.
    func converse(_ message: MailMessage, over session: SmtpSession) async throws(SmtpFailure) {
        try await session.expect([220], to: nil, what: "the greeting", refusal: "the server refused the connection")
        var extensions = try await hello(session)
        if settings.security == .startTls {
            guard extensions["STARTTLS"] != nil, let tls else {
                throw SmtpFailure("the server does not offer STARTTLS, which MICRO_SMTP_URL (smtp+starttls://) asks for: nothing was sent")
            }
            try await session.expect([220], to: "STARTTLS", what: "STARTTLS", refusal: "the server refused STARTTLS (nothing was sent)")
            try await session.connection.startTls(tls, host: settings.host)
            extensions = try await hello(session)
        }
        if let login = settings.login, let password = settings.password {
            try await authenticate(login, password, offered: extensions["AUTH"], over: session)
        }
        try await session.expect([250], to: "MAIL FROM:<\(message.from)>", what: "MAIL FROM", refusal: "the server refused the sender \(message.from)")
        try await session.expect([250, 251], to: "RCPT TO:<\(message.to)>", what: "RCPT TO", refusal: "the server refused the recipient \(message.to)")
        try await session.expect([354], to: "DATA", what: "DATA", refusal: "the server refused DATA")
        try await session.expect([250], to: Self.data(message), what: "the message", refusal: "the server refused the message")
        // Sent: a server that does not say goodbye changes nothing, and is not waited for long
        // (a queue's next message waits meanwhile).
        _ = try? await session.reply(to: "QUIT", what: "QUIT", limit: .seconds(2))
    }

    /// `EHLO` and the extensions the server offers.
    private func hello(_ session: SmtpSession) async throws(SmtpFailure) -> [String: [String]] {
        try await session.expect([250], to: "EHLO \(clientName)", what: "EHLO", refusal: "the server refused EHLO").extensions
    }

    /// `AUTH PLAIN` when the server offers it, else `AUTH LOGIN`.
    private func authenticate(_ login: String, _ password: String, offered: [String]?, over session: SmtpSession) async throws(SmtpFailure) {
        guard let offered else {
            throw SmtpFailure("the server does not offer AUTH, and MICRO_SMTP_URL gives a login: nothing was sent")
        }
        let refusal = "the server refused the login '\(ControlEscapingLogHandler.escape(login))'"
        if offered.contains("PLAIN") {
            try await session.expect([235], to: "AUTH PLAIN " + Self.base64("\0\(login)\0\(password)"), what: "AUTH PLAIN", refusal: refusal)
        } else if offered.contains("LOGIN") {
            try await session.expect([334], to: "AUTH LOGIN", what: "AUTH LOGIN", refusal: refusal)
            try await session.expect([334], to: Self.base64(login), what: "AUTH LOGIN's login", refusal: refusal)
            try await session.expect([235], to: Self.base64(password), what: "AUTH LOGIN's password", refusal: refusal)
        } else {
            let methods = ControlEscapingLogHandler.escape(offered.joined(separator: " "))
            throw SmtpFailure("the server offers AUTH \(methods) but neither PLAIN nor LOGIN, the two this client speaks: nothing was sent")
        }
    }

    /// The message as `DATA` sends it: a line that starts with `.` gets another in front
    /// (RFC 5321's dot-stuffing, which the server takes off again), and a line of `.` alone ends it.
    static func data(_ message: MailMessage) -> String {
        var data = ""
        for line in message.rendered.split(separator: "\r\n", omittingEmptySubsequences: false).dropLast() {
            data += (line.hasPrefix(".") ? "." : "") + line + "\r\n"
        }
        return data + "."
    }
}
