// An app of the core, authentication and PostgreSQL alone, as the README's "A whole app" without
// the account pages: its users in credentials.yml, or in the database MICRO_DATABASE_URL names.
// `scripts/check-without-accounts` builds it and checks that neither MicroAccounts nor
// libqrencode nor libfido2 is in its build or linked to its binary.
import Foundation
import MicroAuth
import MicroCore
import MicroPostgres

let app = App()
if ProcessInfo.processInfo.environment[AppStores.urlVariable] != nil {
    let stores = await app.configure { try await AppStores.open(file: "signin.db") }
    app.use(stores)
    app.use(Authentication(stores: stores))
} else {
    let users = app.configure { try YamlUserStore(file: "credentials.yml") }
    app.use(Authentication(users: users))
}

app.get("/") { request in
    try request.render("index", ["title": "Home"])
}

app.get("/protected/?") { request in
    try request.authenticate()
    return try request.render("protected", ["title": "Protected Page"])
}

try await app.run()
