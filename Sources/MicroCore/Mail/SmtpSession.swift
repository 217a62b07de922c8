/// One message's conversation: its connection, the time it has left, and the commands and
/// replies of RFC 5321 in their order.
struct SmtpSession {
    let connection: SmtpConnection
    let deadline: ContinuousClock.Instant
    let mailer: SmtpMailer

    /// Sends `command` (none for the greeting) and returns the reply, waited for at most
    /// `limit` (the reply timeout unless given) and never past the deadline. `what` names it
    /// in a timeout's error.
    func reply(to command: String?, what: String, limit: Duration? = nil) async throws(SmtpFailure) -> SmtpReply {
        if let command { connection.send(command + "\r\n") }
        let limit = min(limit ?? mailer.replyTimeout, mailer.replyTimeout)
        let left = deadline - ContinuousClock.now
        let failure =
            left < limit
            ? SmtpFailure("no reply to \(what) within the \(SmtpFailure.words(mailer.totalTimeout)) a message may take in all")
            : SmtpFailure("no reply to \(what) within \(SmtpFailure.words(limit))")
        return try await connection.reply(within: min(left, limit), orFail: failure)
    }

    /// The reply to `command`, which must have one of `codes`; else fails with `refusal`, the
    /// reply quoted after it.
    @discardableResult
    func expect(_ codes: Set<Int>, to command: String?, what: String, refusal: String) async throws(SmtpFailure) -> SmtpReply {
        let reply = try await reply(to: command, what: what)
        guard codes.contains(reply.code) else { throw SmtpFailure("\(refusal): \(reply.quoted)") }
        return reply
    }
}
