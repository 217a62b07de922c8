import Micro
import MicroPostgres
import NotesToolApp

// notes.db beside the app, or the PostgreSQL database MICRO_DATABASE_URL names.
let database = try await Database.open(file: "notes.db")
let app = makeApp(users: try YamlUserStore(file: "credentials.yml"), database: database)
try await app.run()
