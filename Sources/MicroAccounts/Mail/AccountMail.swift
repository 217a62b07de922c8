import MicroCore

/// The account pages' mail: an invitation's set-up link sent to the new user's address, and
/// "forgot password" (`/password/forgot`, linked from the sign-in page) sending a reset link.
/// Without it (``Accounts/mail`` nil) an admin passes links on by hand and there is no
/// "forgot password".
///
/// ```swift
/// var accounts = Accounts(database: database)
/// accounts.mail = try AccountMail.fromProcess(app.settings.variables)   // MICRO_SMTP_URL, MICRO_MAIL_FROM
/// ```
public struct AccountMail: Sendable {
    /// What sends a message: `SmtpMailer`, or a test's `RecordingMailer`.
    public var mailer: any Mailer
    /// The sender.
    public var from: MailAddress
    /// The sender's display name; nil for the address alone.
    public var fromName: String?
    /// The most messages (invitations and resets) waiting to be sent at once: past that, an
    /// invitation's page says its message was not sent, and "forgot password" answers 503 to
    /// every address alike.
    public var queueCapacity = 100
    /// How long an admin's page waits for an invitation's message to be sent before it says it
    /// could not be.
    public var sendTimeout: Duration = .seconds(30)
    /// How long a reset link opens: an hour.
    public var resetLinkLifetime: Duration = .seconds(3600)
    /// The most reset messages one user is sent in ``resetWindow``, whoever asks.
    public var resetsPerUser = 3
    /// The window of ``resetsPerUser``: an hour.
    public var resetWindow: Duration = .seconds(3600)
    /// After a message could not be sent, how long "forgot password" answers 503 before it tries
    /// the server again.
    public var outagePause: Duration = .seconds(60)

    /// Mail sent by `mailer` from `from`.
    public init(mailer: any Mailer, from: MailAddress, fromName: String? = nil) {
        self.mailer = mailer
        self.from = from
        self.fromName = fromName
    }

    /// Mail through the server of `smtp` (`SmtpMailer`), from its sender.
    public init(smtp: SmtpSettings) throws(ConfigurationError) {
        self.init(mailer: try SmtpMailer(settings: smtp), from: smtp.from, fromName: smtp.fromName)
    }

    /// The mail of `MICRO_SMTP_URL` and its companions in `variables`
    /// (`SmtpSettings.fromProcess(_:)`); nil without `MICRO_SMTP_URL`. A bad value
    /// is an error naming its variable.
    public static func fromProcess(_ variables: [String: String]) throws(ConfigurationError) -> AccountMail? {
        guard let smtp = try SmtpSettings.fromProcess(variables) else { return nil }
        return try AccountMail(smtp: smtp)
    }

    /// What is wrong with these settings set in code, each naming its property: a value that
    /// would open nothing, send nothing, or never let a message go.
    var settingsProblems: [String] {
        var problems: [String] = []
        let resetSeconds = resetLinkLifetime.components.seconds
        if !Accounts.setupLinkLifetimes.contains(resetSeconds) {
            problems.append("AccountMail.resetLinkLifetime is \(resetLinkLifetime); it must be from \(Accounts.setupLinkLifetimes.lowerBound) to \(Accounts.setupLinkLifetimes.upperBound) seconds.")
        }
        if resetsPerUser < 1 { problems.append("AccountMail.resetsPerUser is \(resetsPerUser); it must be at least 1.") }
        for (name, value) in [("resetWindow", resetWindow), ("sendTimeout", sendTimeout), ("outagePause", outagePause)] where value < .seconds(1) {
            problems.append("AccountMail.\(name) is \(value); it must be at least a second.")
        }
        if queueCapacity < 1 { problems.append("AccountMail.queueCapacity is \(queueCapacity); it must be at least 1.") }
        return problems
    }

    /// A message from the sender to `to`.
    func message(to: MailAddress, toName: String?, subject: String, body: String) -> MailMessage {
        MailMessage(from: from, fromName: fromName, to: to, toName: toName, subject: subject, body: body)
    }
}
