import Micro
import MicroCommands

// A tool of one's own, as the article "A tool of your own" builds it: the users in the
// tool's own table, Micro's commands under its name. SampleAppTests' CommandLineToolTests run it.
await CommandLineTool(abstract: "A lab's sample tracker.", database: "lab.db") { app, stores in
    app.use(Authentication(stores: stores))
    app.use(Accounts(stores: stores))
    app.get("/") { request in
        let user = try request.authenticate()
        return "Samples of \(user.name)"
    }
}.main()
