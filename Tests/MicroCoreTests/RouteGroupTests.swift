import Foundation
import MicroCore
import MicroTestSupport
import MicroTesting
import Testing

/// Route groups: a prefix with filters, around blocks and error handlers of its own.
@Suite struct RouteGroupTests {
    @Test func aGroupsRoutesLiveUnderItsPrefixAndItsFiltersRunOnlyThere() async throws {
        let app = testApp()
        app.before { request in request.response.headers.add(name: "X-Filters", value: "app") }
        app.group("/admin") { admin in
            admin.before { request in request.response.headers.add(name: "X-Filters", value: "admin") }
            admin.after { request in request.response.headers.add(name: "X-After", value: "admin") }
            admin.get("/") { _ in "admin home" }
            admin.get("/users/:id") { request in "user \(request.params["id"] ?? "")" }
            admin.group("/reports") { reports in
                reports.before { request in request.response.headers.add(name: "X-Filters", value: "reports") }
                reports.get("/daily") { _ in "daily" }
            }
        }
        app.get("/administrator") { _ in "not in the group" }
        let client = TestClient(app)

        for path in ["/admin", "/admin/"] {
            let home = try await client.get(path)
            #expect(home.text == "admin home", "\(path)")
            #expect(home.headers["X-Filters"] == ["app", "admin"])
            #expect(home.headers["X-After"] == ["admin"])
        }
        #expect(try await client.get("/admin/users/7").text == "user 7")
        let daily = try await client.get("/admin/reports/daily")
        #expect(daily.text == "daily")
        #expect(daily.headers["X-Filters"] == ["app", "admin", "reports"])
        // A path that only starts with the same letters is not in the group.
        let outside = try await client.get("/administrator")
        #expect(outside.text == "not in the group")
        #expect(outside.headers["X-Filters"] == ["app"])
        #expect(outside.headers["X-After"] == [])
        // A 404 under the prefix still passes the group's after filters.
        let missing = try await client.get("/admin/nothing")
        #expect(missing.status == .notFound)
        #expect(missing.headers["X-After"] == ["admin"])
    }

    @Test func aGroupsErrorHandlersComeBeforeTheAppsAndStayInTheGroup() async throws {
        let app = testApp()
        app.error(.notFound) { _, _ in "app's 404" }
        app.group("/api") { api in
            api.error(.notFound) { _, _ in "api's 404" }
            api.get("/boom") { _ -> String in throw HttpError(.notFound, "gone") }
            api.group("/v2") { v2 in
                v2.error(.notFound) { _, _ in "v2's 404" }
            }
        }
        let client = TestClient(app)
        #expect(try await client.get("/api/nothing").text == "api's 404")
        #expect(try await client.get("/api/boom").text == "api's 404")
        #expect(try await client.get("/api/v2/nothing").text == "v2's 404")
        #expect(try await client.get("/elsewhere").text == "app's 404")
        #expect(try await client.get("/apis").text == "app's 404")
    }

    @Test func aBadPrefixOrAPatternWithoutASlashStopsStartUpNamingTheLine() async throws {
        for prefix in ["admin", "/admin/", "/:team", "/files/*", "/", "/a//b"] {
            let app = testApp()
            app.group(prefix)
            do {
                _ = try await app.respond(method: .GET, uri: "/")
                Issue.record("expected a configuration error for \(prefix)")
            } catch let error as ConfigurationError {
                #expect(error.message.contains("RouteGroupTests.swift:"), "\(prefix)")
            }
        }
        // Patterns or nested prefixes that would reach past the group (`/adminusers`, `/adminx`).
        let mistakes: [(RouteGroup) -> Void] = [
            { $0.get("users") { _ in "x" } }, { $0.get("/?:format") { _ in "x" } }, { $0.group("reports") },
        ]
        for mistake in mistakes {
            let app = testApp()
            app.group("/admin") { admin in mistake(admin) }
            do {
                _ = try await app.respond(method: .GET, uri: "/")
                Issue.record("expected a configuration error")
            } catch let error as ConfigurationError {
                #expect(error.message.contains("RouteGroupTests.swift:"), "\(error.message)")
            }
        }
    }

    @Test func theFirstMatchInDefinitionOrderStillWinsAcrossGroups() async throws {
        let app = testApp()
        app.get("/admin/:page") { request in
            guard request.params["page"] == "first" else { try request.pass() }
            return "app route"
        }
        app.group("/admin") { admin in
            admin.get("/first") { _ in "group route" }
            admin.get("/:page") { _ in "group catch-all" }
        }
        let client = TestClient(app)
        #expect(try await client.get("/admin/first").text == "app route")
        #expect(try await client.get("/admin/other").text == "group catch-all")
    }
}

/// `around`: code that wraps the filters and the route.
@Suite struct WrapperTests {
    @Test func aroundBlocksRunOutermostFirstAndSeeHaltsAsResponsesAndErrorsAsErrors() async throws {
        let app = testApp()
        let log = LogRecorder()
        app.around { request, next in
            log.logger.info("outer in")
            var response = try await next()
            response.headers.add(name: "X-Wrapped", value: "outer")
            log.logger.info("outer out \(response.status.code)")
            return response
        }
        app.around { request, next in
            log.logger.info("inner in")
            do {
                return try await next()
            } catch let error as HttpError where error.status == .conflict {
                return Response(status: .accepted, contentType: "text/plain", body: "translated")
            }
        }
        app.before { request in log.logger.info("before") }
        app.get("/ok") { _ in "ok" }
        app.get("/halt") { request in try request.redirect(to: "/ok") }
        app.get("/conflict") { _ -> String in throw HttpError(.conflict, "busy") }
        app.get("/teapot") { _ -> String in throw HttpError(.badRequest, "no") }
        let client = TestClient(app)

        let ok = try await client.get("/ok")
        #expect(ok.text == "ok" && ok.headers["X-Wrapped"] == ["outer"])
        #expect(log.messages(at: .info) == ["outer in", "inner in", "before", "outer out 200"])
        let halted = try await client.get("/halt")
        #expect(halted.location == "/ok" && halted.headers["X-Wrapped"] == ["outer"])
        let translated = try await client.get("/conflict")
        #expect(translated.status == .accepted && translated.text == "translated")
        // An error the around blocks let through is answered as a route's error is.
        #expect(try await client.get("/teapot").status == .badRequest)
    }

    @Test func aGroupsWrapperWrapsOnlyTheGroup() async throws {
        let app = testApp()
        app.group("/timed") { timed in
            timed.around { _, next in
                var response = try await next()
                response.headers.add(name: "X-Timed", value: "yes")
                return response
            }
            timed.get("/a") { _ in "a" }
        }
        app.get("/b") { _ in "b" }
        let client = TestClient(app)
        #expect(try await client.get("/timed/a").headers["X-Timed"] == ["yes"])
        #expect(try await client.get("/b").headers["X-Timed"] == [])
    }

    @Test func aForgedRequestReachesNoWrapper() async throws {
        let app = testApp()
        let log = LogRecorder()
        app.around { request, next in
            log.logger.info("wrapper ran")
            return try await next()
        }
        app.post("/notes") { _ in "saved" }
        let client = TestClient(app)
        client.sendsCsrfToken = false
        #expect(try await client.post("/notes", form: ["text": "x"]).status == .forbidden)
        #expect(log.messages(at: .info).isEmpty)
    }
}

/// Typed values that filters compute for handlers.
@Suite struct RequestStorageTests {
    enum Team: RequestStorageKey { typealias Value = String }
    enum Visits: RequestStorageKey { typealias Value = Int }

    @Test func aFilterHandsTypedValuesToTheHandler() async throws {
        let app = testApp()
        app.before("/teams/:team/*") { request in
            request.storage[Team.self] = request.params["team"]
            request.storage[Visits.self] = 3
        }
        app.get("/teams/:team/notes") { request in
            "\(request.storage[Team.self] ?? "none") \(request.storage[Visits.self] ?? 0)"
        }
        app.get("/other") { request in request.storage[Team.self] ?? "none" }
        let client = TestClient(app)
        #expect(try await client.get("/teams/ops/notes").text == "ops 3")
        #expect(try await client.get("/other").text == "none")
    }

    @Test func aRegisteredServiceIsFoundByItsType() async throws {
        struct Version: Sendable { let text: String }
        let app = testApp()
        app.register(Version(text: "1.4.2"))
        app.get("/version") { request in request.service(Version.self)?.text ?? "none" }
        #expect(try await TestClient(app).get("/version").text == "1.4.2")
    }
}
