import ArgumentParser
import Micro
import MicroCommands

// A tool of one's own, as the article "A tool of your own" builds it: the users in the
// tool's own table, Micro's commands under its name, and a command of its own (`seed`) over
// the same stores and migrations. SampleAppTests' CommandLineToolTests run it.

/// The samples' table, made by the app's migrations.
@Sendable func addSamplesTable(to database: Database) {
    database.migrations.add("1 create samples") { sql in
        try await sql.create(table: "samples").ifNotExists()
            .column("id", type: .bigint, .primaryKey(autoIncrement: true))
            .column("label", type: .text, .notNull)
            .run()
    }
}

/// `labtool seed COUNT`: adds COUNT example samples, and says how many there are.
struct Seed: AsyncParsableCommand {
    static let configuration = CommandConfiguration(abstract: "Add example samples.")
    @Argument(help: "How many (1 to 1000).") var count: Int

    func validate() throws {
        guard (1...1000).contains(count) else { throw ValidationError("COUNT is from 1 to 1000.") }
    }

    func run() async throws {
        let total = try await CommandLineTool.withApp { _, stores in
            let count = count
            // One insert of every row, in one transaction with the count that follows it.
            return try await stores.database.transaction { sql in
                var insert = sql.insert(into: "samples").columns("label")
                for index in 1...count { insert = insert.values(SQLBind("example \(index)")) }
                try await insert.run()
                return try await sql.raw("SELECT COUNT(*) AS total FROM samples").first(decoding: Total.self)?.total ?? 0
            }
        }
        print("\(total) samples in the tool's database.")
    }

    struct Total: Decodable, Sendable { var total: Int }
}

await CommandLineTool(abstract: "A lab's sample tracker.", database: "lab.db", commands: [Seed.self]) { app, stores in
    app.use(Authentication(stores: stores))
    app.use(Accounts(stores: stores))
    addSamplesTable(to: stores.database)
    app.get("/") { request in
        let user = try request.authenticate()
        return "Samples of \(user.name)"
    }
}.main()
