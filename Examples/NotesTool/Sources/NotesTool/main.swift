import Micro
import MicroPostgres
import NotesToolApp

let app = App()
// A start-up step that fails (a missing credentials.yml, a database out of reach) prints one
// line naming the file or variable and exits with status 1.
let users = app.configure { try YamlUserStore(file: "credentials.yml") }
// notes.db beside the app, or the PostgreSQL database MICRO_DATABASE_URL names.
let database = await app.configure { try await Database.open(file: "notes.db") }
try await makeApp(app, users: users, database: database).run()
