import Micro
import MicroPostgres

/// The on-call notes tool: notes under `/notes` for people, `/api/notes` for scripts with an
/// API token, `/healthz` for the load balancer; the account pages, the users page and the
/// audit from `Accounts`; everything in `stores` (SQLite, or PostgreSQL shared by instances).
public func makeApp(_ app: App = App(), stores: AppStores) -> App {
    app.use(stores)                       // the database (its migrations run at start)
    var authentication = Authentication(stores: stores)
    // Scripts use API tokens: a password sent with each request would skip the second factor.
    authentication.acceptsBasicCredentials = false
    app.use(authentication)
    var accounts = Accounts(stores: stores)
    accounts.twoFactor.issuer = "NotesTool"
    accounts.twoFactor.requiredForRoles = ["admin"]
    app.use(accounts)
    let store = NoteStore(stores.database)

    app.get("/") { request in try request.redirect(to: "/notes") }
    app.get("/healthz") { _ in "ok" }

    app.group("/notes") { notes in
        notes.authenticate()
        notes.get("/") { request in
            let severity = Note.severity(request.params["severity"])
            let page = try await store.page(try request.paging(size: 20), severity: severity)
            return try request.render("notes/index", [
                "title": "Notes", "notes": page.items, "page": page.links,
                "severities": request.options("severity", Note.severities, chosen: severity.map { [String($0)] } ?? []),
            ])
        }
        notes.get("/new") { request in
            try request.render("notes/new", ["title": "New note", "severities": request.options("severity", Note.severities, chosen: ["3"])])
        }
        notes.post("/") { request in
            let draft = try request.decode(
                NoteDraft.self, orRender: "notes/new", ["title": "New note", "severities": request.options("severity", Note.severities)])
            let note = try await store.add(draft, by: try request.authenticate().username)
            try await request.recordAppEvent("note_added", subject: "note \(note.id)", detail: "SEV\(note.severity) \(note.title)")
            request.flash["notice"] = "Note saved."
            try request.redirect(to: "/notes/\(note.id)")
        }
        notes.get("/:id") { request in
            let note = try await store.note(request.params["id"])
            return try request.render("notes/show", ["title": note.title, "note": note])
        }
        notes.post("/:id/delete") { request in
            try request.authorize(role: "admin")
            let note = try await store.remove(request.params["id"])
            try await request.recordAppEvent("note_deleted", subject: "note \(note.id)", detail: note.title)
            request.flash["notice"] = "Note deleted."
            try request.redirect(to: "/notes")
        }
    }

    app.group("/api", answers: .json) { api in
        api.authenticate()
        // A page at a time; the next one is named in the `Link` header, as scripts expect.
        api.get("/notes") { request in
            let page = try await store.page(try request.paging(size: 100), severity: Note.severity(request.params["severity"]))
            if let next = page.next { request.response.headers.add(name: "Link", value: "<\(next)>; rel=\"next\"") }
            return page.items
        }
        api.post("/notes") { request in
            let note = try await store.add(try request.decode(NoteDraft.self), by: try request.authenticate().username)
            try await request.recordAppEvent("note_added", subject: "note \(note.id)", detail: "SEV\(note.severity) \(note.title)")
            request.response.status = .created
            return note
        }
    }
    return app
}
