// An app with the account pages and two-factor sign-in but no passkeys, its users and its pages'
// state in SQLite files. `scripts/check-without-accounts` builds it and checks that neither
// MicroPasskeys nor libfido2 is in its build or linked to its binary.
import MicroAccounts
import MicroAuth
import MicroCore
import MicroTwoFactor

let app = App()
let users = app.configure { try SqliteUserStore(path: "users.db", create: true) }
let database = await app.configure { try await Database.sqlite(path: "accounts.db") }
app.use(Authentication(users: users))
var accounts = Accounts(database: database, features: [])
accounts.twoFactor.issuer = "No passkeys"
app.use(accounts)

app.get("/") { request in
    try request.render("index", ["title": "Home"])
}

app.get("/protected/?") { request in
    try request.authenticate()
    return try request.render("protected", ["title": "Protected Page"])
}

try await app.run()
