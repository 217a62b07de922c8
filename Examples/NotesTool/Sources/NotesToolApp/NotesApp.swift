import Micro

/// The on-call notes tool: notes under `/notes` for people, `/api/notes` for scripts and
/// `/healthz` for the load balancer; the notes in `database`; failed sign-ins counted in
/// `throttleStore` when instances share one. Tests pass an app with their own settings.
public func makeApp(_ app: App = App(), users: any UserStore, database: Database, throttleStore: (any SignInThrottleStore)? = nil) -> App {
    var authentication = Authentication(users: users)
    authentication.throttleStore = throttleStore
    app.use(authentication)
    let store = NoteStore(database)
    app.use(database)                     // runs the notes' migration when the app starts

    app.get("/") { request in try request.redirect(to: "/notes") }
    app.get("/healthz") { _ in "ok" }

    app.group("/notes") { notes in
        notes.authenticate()
        notes.get("/") { request in
            try request.render("notes/index", ["title": "Notes", "notes": try await store.all()])
        }
        notes.get("/new") { request in
            try request.render("notes/new", ["title": "New note"])
        }
        notes.post("/") { request in
            let draft = try request.decode(NoteDraft.self, orRender: "notes/new", ["title": "New note"])
            let note = try await store.add(draft, by: try request.authenticate().username)
            request.flash["notice"] = "Note saved."
            try request.redirect(to: "/notes/\(note.id)")
        }
        notes.get("/:id") { request in
            let note = try await store.note(request.params["id"])
            return try request.render("notes/show", ["title": note.title, "note": note])
        }
        notes.post("/:id/delete") { request in
            try request.authorize(role: "admin")
            try await store.remove(request.params["id"])
            request.flash["notice"] = "Note deleted."
            try request.redirect(to: "/notes")
        }
    }

    app.group("/api", answers: .json) { api in
        api.authenticate()
        api.get("/notes") { _ in try await store.all() }
        api.post("/notes") { request in
            let note = try await store.add(try request.decode(NoteDraft.self), by: request.currentUser?.username ?? "")
            request.response.status = .created
            return note
        }
    }
    return app
}
