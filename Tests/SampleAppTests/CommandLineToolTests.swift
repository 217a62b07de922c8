import Foundation
import Micro
import Testing

/// A tool of one's own on Micro's command line (`CommandLineTool`, Tests/LabTool), run as its
/// operator runs it: the first admin from `add-user` into the tool's own file, `serve` signing
/// them in from it, the other commands under the tool's name, bad input refused in one line.
@Suite struct CommandLineToolTests {
    /// Runs LabTool in `folder` to its end, `input` on standard input, without this process's
    /// `MICRO_*` settings.
    private func run(_ arguments: [String], in folder: URL, environment: [String: String] = [:], input: String = "") throws -> CommandRun {
        try CommandRun(arguments, binary: "LabTool", in: folder, environment: environment, clean: true, input: input)
    }

    /// A folder for the tool, with its views: a layout, which the built-in sign-in page shows in.
    private func folder() throws -> URL {
        let folder = FileManager.default.temporaryDirectory.appendingPathComponent("micro-labtool-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: folder.appendingPathComponent("views"), withIntermediateDirectories: true)
        try "<!DOCTYPE html><title>{{title}}</title><nav data-lab>Lab</nav>{{{yield}}}".write(
            to: folder.appendingPathComponent("views/layout.mustache"), atomically: true, encoding: .utf8)
        return folder
    }

    @Test func theFirstAdminComesFromAddUserAndSignsInToTheServedTool() async throws {
        let folder = try folder()
        defer { try? FileManager.default.removeItem(at: folder) }
        let added = try run(["add-user", "Ann", "--role", "admin", "--cost", "4"], in: folder, input: "a long unusual phrase\n")
        #expect(added.status == 0, "\(added.errors)")
        #expect(added.output.contains("Saved new user 'ann' in lab.db."), "\(added.output)")
        let file = folder.appendingPathComponent("lab.db").path
        let mode = try FileManager.default.attributesOfItem(atPath: file)[.posixPermissions] as? Int
        #expect(mode == 0o600)

        let tool = try await SampleAppProcess.start(["PORT": "0", "MICRO_ENV": "development"], in: folder, binary: "LabTool")
        defer { tool.stop() }
        #expect(try await RawSocket.get(port: tool.port, path: "/signin").contains("<nav data-lab>Lab</nav>"))
        #expect(try await RawSocket.signIn(port: tool.port, username: "ann", password: "a long unusual phrase") == "/")
        #expect(try await RawSocket.signIn(port: tool.port, username: "ann", password: "wrong") == "/signin")
        // While it serves, the commands change the same table: a removed user signs in no more.
        let removed = try run(["remove-user", "ann"], in: folder)
        #expect(removed.status == 0, "\(removed.errors)")
        #expect(removed.output.contains("Removed user 'ann' from lab.db"))
        #expect(try await RawSocket.signIn(port: tool.port, username: "ann", password: "a long unusual phrase") == "/signin")
        try await tool.terminateCleanly()
    }

    /// As the service unit in deploy/ runs a tool: its files beside the binary, its database in
    /// the state directory `MICRO_DATABASE_FILE` names, for the commands and `serve` alike.
    @Test func theDatabaseFileVariablePutsTheFileInAStateDirectory() async throws {
        let folder = try folder()
        let state = FileManager.default.temporaryDirectory.appendingPathComponent("micro-labtool-state-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: state, withIntermediateDirectories: true)
        defer {
            try? FileManager.default.removeItem(at: folder)
            try? FileManager.default.removeItem(at: state)
        }
        let file = state.appendingPathComponent("lab.db").path
        let added = try run(["add-user", "ann", "--cost", "4"], in: folder, environment: ["MICRO_DATABASE_FILE": file], input: "a long unusual phrase\n")
        #expect(added.status == 0, "\(added.errors)")
        #expect(added.output.contains("Saved new user 'ann' in \(file)."), "\(added.output)")
        #expect(FileManager.default.fileExists(atPath: file))
        #expect(!FileManager.default.fileExists(atPath: folder.appendingPathComponent("lab.db").path))

        let tool = try await SampleAppProcess.start(
            ["PORT": "0", "MICRO_ENV": "development", "MICRO_DATABASE_FILE": file], in: folder, binary: "LabTool")
        defer { tool.stop() }
        #expect(try await RawSocket.signIn(port: tool.port, username: "ann", password: "a long unusual phrase") == "/")
        try await tool.terminateCleanly()
        #expect(!FileManager.default.fileExists(atPath: folder.appendingPathComponent("lab.db").path))
    }

    /// A command of the tool's own (`seed`) opens the same stores as `serve`, with the app's
    /// migrations done, and what it writes is what the served tool reads.
    @Test func aCommandOfTheToolsOwnWorksOnItsStoresAfterItsMigrations() async throws {
        let folder = try folder()
        defer { try? FileManager.default.removeItem(at: folder) }
        let first = try run(["seed", "3"], in: folder)
        #expect(first.status == 0, "\(first.errors)")
        #expect(first.output.contains("3 samples in the tool's database."), "\(first.output)")
        let second = try run(["seed", "2"], in: folder)
        #expect(second.output.contains("5 samples in the tool's database."), "\(second.output)")
        // The users' table is the same file's: add-user and serve see one database.
        #expect(try run(["add-user", "ann", "--cost", "4"], in: folder, input: "a long unusual phrase\n").status == 0)
        let refused = try run(["seed", "0"], in: folder)
        #expect(refused.status != 0)
        #expect(refused.errors.contains("COUNT is from 1 to 1000."), "\(refused.errors)")
        // A database out of reach is one line naming it, as for serve.
        let unreachable = try run(["seed", "1"], in: folder, environment: ["MICRO_DATABASE_URL": "postgres://nobody@127.0.0.1:1/none"])
        #expect(unreachable.status == 1)
        #expect(unreachable.errors.contains("Micro cannot start"), "\(unreachable.errors)")
    }

    @Test func theCommandsSpeakTheToolsName() throws {
        let folder = try folder()
        defer { try? FileManager.default.removeItem(at: folder) }
        let help = try run(["--help"], in: folder)
        #expect(help.status == 0)
        #expect(help.output.contains("USAGE: LabTool"), "\(help.output)")
        #expect(help.output.contains("A lab's sample tracker."))
        for command in ["serve", "add-user", "remove-user", "reset-two-factor", "hash-password", "links", "unlink"] {
            #expect(help.output.contains(command), "\(command)")
        }
        let reset = try run(["reset-two-factor", "ann"], in: folder)
        #expect(reset.status != 0)
        // No file yet: reset-two-factor creates none, and says which it looked for.
        #expect(reset.errors.contains("lab.db"), "\(reset.errors)")
        #expect(!FileManager.default.fileExists(atPath: folder.appendingPathComponent("lab.db").path))
    }

    @Test func routesListsThePipelineWithTheToolsOwnLinesAndMicros() throws {
        let folder = try folder()
        defer { try? FileManager.default.removeItem(at: folder) }
        let listing = try run(
            ["routes"], in: folder, environment: ["MICRO_ENV": "development", "MICRO_DATABASE_URL": "postgres://micro:secret@127.0.0.1:1/micro"])
        #expect(listing.status == 0, "\(listing.errors)")
        // A listing opens none of the tool's stores: no file made, no database reached.
        #expect(!FileManager.default.fileExists(atPath: folder.appendingPathComponent("lab.db").path))
        let lines = listing.output.split(separator: "\n").map(String.init)
        // The tool's own route, at its line in Tests/LabTool/main.swift.
        #expect(lines.contains { $0.contains("route") && $0.contains("GET /") && $0.contains("LabTool/main.swift:") }, "\(listing.output)")
        // What the plugins added, each under its module and file.
        #expect(lines.contains { $0.contains("credential check") && $0.contains("HTTP Basic") && $0.contains("MicroAuth/Authentication+Steps.swift:") })
        #expect(lines.contains { $0.contains("credential check") && $0.contains("API token (Bearer)") && $0.contains("MicroAccounts/") })
        #expect(lines.contains { $0.contains("template value") && $0.contains("currentUser") && $0.contains("MicroAuth") })
        #expect(lines.contains { $0.contains("GET /signin/?") })
        // The tool's migrations, where its database is prepared.
        #expect(lines.contains { $0.contains("preparation") && $0.contains("migrations") }, "\(listing.output)")
        // In the order a request meets them.
        let occasions = lines.filter { !$0.hasPrefix(" ") }
        #expect(occasions == ["At start-up", "Each request", "While a template renders"], "\(occasions)")
        let session = try #require(lines.firstIndex { $0.contains("session check") })
        let firstRoute = try #require(lines.firstIndex { $0.hasPrefix("  route") })
        #expect(session < firstRoute)
    }

    @Test func badArgumentsAreOneLineAndANonZeroStatus() throws {
        let folder = try folder()
        defer { try? FileManager.default.removeItem(at: folder) }
        // Mistakes in the arguments come with the usage; failures of the work are one line.
        let cases: [(arguments: [String], input: String, says: String, oneLine: Bool)] = [
            (["add-user", "a:b"], "a long unusual phrase\n", "username", false),
            (["add-user", "ann", "--db", "x.db", "--database-url", "postgres://h/d"], "", "not both", false),
            (["add-user", "ann", "--cost", "4"], "password\n", "password", true),
            (["remove-user", "nobody", "--db", folder.appendingPathComponent("none.db").path], "", "none.db", true),
            (["hash-password"], "", "No password", true),
            (["add-user", "ann", "--database-url", "mysql://h/d"], "a long unusual phrase\n", "--database-url", true),
            (["add-user", "ann", "--database-url", "postgres://micro:secret@127.0.0.1:1/micro"], "a long unusual phrase\n", "--database-url", true),
        ]
        for (arguments, input, says, oneLine) in cases {
            let result = try run(arguments, in: folder, input: input)
            #expect(result.status != 0, "\(arguments)")
            #expect(result.errors.contains(says), "\(arguments): \(result.errors)")
            #expect(!result.errors.contains("Fatal error") && !result.errors.contains("Stack dump"), "\(arguments)")
            #expect(!result.errors.contains("secret"), "\(arguments)")
            if oneLine { #expect(result.errors.split(separator: "\n").count == 1, "\(arguments): \(result.errors)") }
        }
        // The same for serve: a database URL that is no URL stops start-up with one line naming it.
        let serve = try run([], in: folder, environment: ["MICRO_DATABASE_URL": "not a url", "PORT": "0"])
        #expect(serve.status == 1)
        #expect(serve.errors.hasPrefix("Micro cannot start: MICRO_DATABASE_URL"), "\(serve.errors)")
        #expect(serve.errors.split(separator: "\n").count == 1)
    }
}
