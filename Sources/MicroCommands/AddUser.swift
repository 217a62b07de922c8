import ArgumentParser
import Foundation
import Micro
#if OpenIdConnect
import MicroOpenIdConnect
#endif

/// Adds a user to a users table (SQLite or PostgreSQL), or changes their password.
struct AddUser: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "add-user",
        abstract: "Add a user to a users table, SQLite or PostgreSQL (or change their password); the password is read as by hash-password, or with --sso-only the user has none.")

    @Argument(help: "The username (case-insensitive: ÉMILE is émile; letters, digits and ASCII punctuation, no spaces or ':').")
    var username: String

    @OptionGroup var database: UserDatabaseOptions

    @Option(help: "The name pages show (default: the username capitalized).")
    var name: String?

    @Option(name: .customLong("role"), help: "A role the user has (admin, say); repeat it, or separate several by commas (--role admin,editor).")
    var roleOptions: [String] = []

    /// The roles of every `--role`, a comma list split, each once.
    var roles: [String] {
        var seen = Set<String>()
        return roleOptions.flatMap { $0.split(separator: ",").map { String($0).trimmingCharacters(in: .whitespaces) } }
            .filter { !$0.isEmpty && seen.insert($0).inserted }
    }

    @Option(help: "Where mail to the user goes (a set-up link, a password reset): name@example.com.")
    var email: String?

    @Option(help: "The bcrypt cost, 4 to 31.")
    var cost = Password.defaultCost

    @Flag(help: "Invite a new user: no password is read; a set-up link they choose theirs with is printed on the last line (MICRO_PUBLIC_URL names the app's address; MICRO_SETUP_LINK_LIFETIME, in seconds, how long it opens).")
    var invite = false

    @Flag(help: "A user for single sign-on only: no password (none is read), and a first single sign-on whose username or verified email names them links to them at once, with no password asked.")
    var ssoOnly = false

    func validate() throws {
        try UsernameArgument.validate(username)
        for role in roles {
            if let problem = User.problem(withRole: role) { throw ValidationError("--role: \(problem).") }
        }
        if invite, ssoOnly { throw ValidationError("--invite and --sso-only: choose one (an invited user chooses a password; a single sign-on user has none).") }
        if let email {
            do throws(MailAddressError) { _ = try User.checkedEmail(email) } catch { throw ValidationError("--email: \(error).") }
        }
    }

    func run() async throws {
        let key = try Username.enforce(username)
        let environment = ProcessInfo.processInfo.environment
        let link = invite ? try SetupLinkCommand(environment: environment) : nil
        try await database.withTable(create: true) { table in
            let others = try await table.usernames()
            // Said in the command's words, before the table's unique index would say it in the database's.
            if let email, let owner = try await table.username(withEmail: email), Username.key(owner) != key {
                throw CommandFailure("--email: \(email) is the address of user '\(owner)'; two users cannot share one.")
            }
            if invite, others.contains(key) {
                throw CommandFailure("'\(key)' exists: --invite adds a new user. The users page's Send set-up link gives an existing user one; add-user \(key) sets their password.")
            }
            if let lookalike = UsernameConfusables.lookalike(of: key, among: others) {
                FileHandle.standardError.write(Data((
                    "Warning: '\(key)' looks like the existing user '\(lookalike)' (Unicode's confusables, UTS #39): "
                    + "make sure this is who you mean, not someone posing as them.\n").utf8))
            }
            let hash: String
            if ssoOnly || invite {
                hash = StoredUser.newNoPasswordHash()
            } else {
                let password = try PasswordPrompt.read()
                if let problem = PasswordRules().problem(with: password, username: key) {
                    throw CommandFailure(problem)
                }
                hash = try Password.hash(password, cost: cost)
            }
            // A password typed over an existing user's (a reset) is known to whoever typed it:
            // the user chooses their own at their next sign-in, unless they are the table's
            // only user (there is nobody else to know it). A new user's first password is
            // theirs to keep, as the first admin's is; `--invite` gives none at all.
            let changeDue = !ssoOnly && others.contains(key) && others != [key]
            try await table.save(username: key, passwordHash: hash, name: name, roles: roles, email: email, passwordChangeDue: changeDue)
            let password = ssoOnly ? "no password (single sign-on only)" : "a new password"
            if others.contains(key) {
                // A password reset after an incident: no token or passkey added before it may
                // still let someone in, as on the users page.
                try await table.withDatabase { database in
                    for ended in try await AccountLeftovers.endAccess(of: key, in: database) where ended.count > 0 {
                        await CommandEvent.record(ended.event, of: key, detail: "all \(ended.count), by add-user", in: database)
                    }
                }
                print("Replaced user '\(key)' in \(table.place): \(password), name and roles; their sessions, API tokens and passkeys end.")
            } else {
                // A user of that name removed by hand may have left tokens, a second factor,
                // sessions and history; a provider's account signed in under that name from
                // outside the store left a link, which must not make that account this new user.
                let dropped = try await table.withDatabase { database in
                    try await AccountLeftovers.forget(key, in: database)
                    return try await Self.dropLinks(of: key, in: database)
                }
                print("Saved new user '\(key)' in \(table.place)\(ssoOnly ? " for single sign-on only" : invite ? ", invited" : "").")
                for line in dropped { print(line) }
                if let link {
                    let url = try await table.withDatabase { database in try await link.make(for: key, hash: hash, in: database) }
                    print("Give them this set-up link (it opens once, until \(link.expiry)):")
                    print(url)
                }
            }
        }
    }

    /// Removes the single sign-on links left under `key`, recording each; what to print.
    private static func dropLinks(of key: String, in database: Database) async throws -> [String] {
        #if OpenIdConnect
        let dropped = try await DatabaseIdentityLinkStore(database).unlinkAll(of: key)
        for link in dropped {
            await CommandEvent.record(
                OpenIdConnect.unlinkedEvent, of: key,
                detail: "issuer=\(link.identity.issuer) subject=\(link.identity.subject) the name was given to a new user", in: database)
        }
        return dropped.map {
            "Dropped the link of '\(key)' to subject \(ControlEscapingLogHandler.escape($0.identity.subject)) at \(ControlEscapingLogHandler.escape($0.identity.issuer)): that account signed in under this name from outside the store, and is not this user."
        }
        #else
        return []
        #endif
    }
}
