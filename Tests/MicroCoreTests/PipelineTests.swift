@testable import MicroCore
import MicroTestSupport
import MicroTesting
import Testing

/// The app's pipeline in one listing: each hook with the file and line that added it, in the
/// order a request meets them.
@Suite struct PipelineTests {
    /// The step of `stage` whose `what` is `what`.
    func step(_ app: App, _ stage: PipelineStage, _ what: String) -> PipelineStep? {
        app.pipeline.first { $0.stage == stage && $0.what == what }
    }

    @Test func eachHookNamesTheFileAndLineThatAddedItInTheOrderARequestMeetsThem() throws {
        let app = isolatedApp()
        let file = #fileID
        let beforeLine = #line + 1
        app.before("/admin/*") { _ in }
        let routeLine = #line + 1
        app.post("/notes/:id") { _ in "ok" }
        let getLine = #line + 1
        app.get("/") { _ in "home" }
        let afterLine = #line + 1
        app.after { _ in }
        let aroundLine = #line + 1
        app.around { request, next in try await next() }
        let errorLine = #line + 1
        app.notFound { _ in "nothing here" }
        let valueLine = #line + 1
        app.addTemplateValue("version") { _ in "1.0" }
        let preparationLine = #line + 1
        app.addPreparation("seed the notes") {}
        let checkLine = #line + 1
        app.addSessionCheck("a test's session check") { _, _ in true }
        app.group("/admin") { admin in
            admin.error(.forbidden) { _, _ in "no" }
        }

        let expected: [(PipelineStage, String, Int)] = [
            (.beforeFilter, "/admin/*", beforeLine), (.route, "POST /notes/:id", routeLine), (.route, "GET /", getLine),
            (.afterFilter, "every path", afterLine), (.around, "every path", aroundLine), (.errorHandler, "404", errorLine),
            (.templateValue, "version", valueLine), (.preparation, "seed the notes", preparationLine),
            (.sessionCheck, "a test's session check", checkLine),
        ]
        for (stage, what, line) in expected {
            let found = try #require(step(app, stage, what), "\(stage) \(what)")
            #expect(found.site == SourceSite(file: file, line: UInt(line)), "\(stage) \(what)")
            #expect(found.module == "MicroCoreTests")
        }
        // Error handlers in the order an error tries them: the group's before the app's.
        #expect(app.pipeline.filter { $0.stage == .errorHandler }.map(\.what) == ["403 under /admin", "404"])
        #expect(step(app, .csrfCheck, "POST, PUT, PATCH, DELETE")?.site == nil, "Micro's own, built in")

        // Stages in a request's order; routes in the order they were defined, across methods.
        let stages = app.pipeline.map(\.stage)
        #expect(stages == stages.sorted())
        #expect(app.pipeline.filter { $0.stage == .route }.map(\.what) == ["POST /notes/:id", "GET /"])

        let text = app.describe()
        #expect(text.contains("\(file):\(routeLine)"))
        let lines = text.split(separator: "\n")
        #expect(lines.filter { !$0.hasPrefix(" ") } == ["At start-up", "Each request", "On an error", "While a template renders"])
        let route = try #require(lines.first { $0.contains("POST /notes/:id") })
        #expect(route.contains("MicroCoreTests"), "\(route)")
    }

    @Test func aPreparationStaysListedOnceDone() async throws {
        let app = isolatedApp()
        app.addPreparation("seed") {}
        app.get("/") { _ in "home" }
        #expect(try await TestClient(app).get("/").text == "home")
        #expect(step(app, .preparation, "seed") != nil)
    }
}
