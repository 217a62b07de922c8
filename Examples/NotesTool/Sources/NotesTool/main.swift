import Micro
import MicroCommands
import NotesToolApp

// `NotesTool` serves; `NotesTool hash-password` makes a hash for credentials.yml; `NotesTool
// --help` lists the rest. The notes are in notes.db beside the app, or in the PostgreSQL
// database MICRO_DATABASE_URL names. A start-up step that fails (a missing credentials.yml, a
// database out of reach) prints one line naming the file or variable and exits with status 1.
await CommandLineTool(abstract: "An on-call team's notes.", database: "notes.db", users: .yaml("credentials.yml")) { app, stores in
    _ = makeApp(app, users: stores.users, database: stores.database, throttleStore: stores.throttleStore)
}.main()
