import Micro
import MicroCommands
import NotesToolApp

// `NotesTool` serves; `NotesTool add-user lead --role admin` makes the first admin (the users
// are in the tool's own table; admins then manage the others on /admin/users); `NotesTool
// --help` lists the rest. Everything is in notes.db beside the app, or in the PostgreSQL
// database MICRO_DATABASE_URL names. A start-up step that fails (a database out of reach, a bad
// setting) prints one line naming the file or variable and exits with status 1.
await CommandLineTool(abstract: "An on-call team's notes.", database: "notes.db") { app, stores in
    _ = makeApp(app, stores: stores)
}.main()
