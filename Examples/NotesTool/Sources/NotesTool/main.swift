import Micro
import NotesToolApp

let app = makeApp(users: try YamlUserStore(file: "credentials.yml"))
try await app.run()
