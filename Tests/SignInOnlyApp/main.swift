// An app of the core and authentication alone, as the README's "A whole app" without the account
// pages: `scripts/check-without-accounts` builds it and checks that neither MicroAccounts nor
// libqrencode is in its build or linked to its binary.
import MicroAuth
import MicroCore

let app = App()
let users = app.configure { try YamlUserStore(file: "credentials.yml") }
app.use(Authentication(users: users))

app.get("/") { request in
    try request.render("index", ["title": "Home"])
}

app.get("/protected/?") { request in
    try request.authenticate()
    return try request.render("protected", ["title": "Protected Page"])
}

try await app.run()
