import MicroAuth
import MicroCore

/// The messages that carry a set-up link: the link in the text, and never a password.
enum SetupLinkMail {
    /// An invitation (or an admin's "Send set-up link") to `user` at `to`.
    static func invitation(_ mail: AccountMail, to: MailAddress, user: User, link: String, expires: String, site: String) -> MailMessage {
        mail.message(
            to: to, toName: user.name, subject: "Choose your password",
            body: """
                Hello \(user.name),

                An administrator of \(site) has set up the account "\(user.username)" for you.
                Open this link to choose your password. It works once, until \(expires):

                \(link)

                If you did not expect this message, ignore it: nothing changes without the link.
                """)
    }

    /// A reset link that `user` (or someone who typed their address) asked for.
    static func reset(_ mail: AccountMail, to: MailAddress, user: User, link: String, expires: String, site: String) -> MailMessage {
        mail.message(
            to: to, toName: user.name, subject: "Reset your password",
            body: """
                Hello \(user.name),

                Someone asked to reset the password of the account "\(user.username)" at \(site).
                Open this link to choose a new one. It works once, until \(expires), and signs
                out every session of the account:

                \(link)

                If you did not ask, ignore this message: your password stays as it is.
                """)
    }
}
