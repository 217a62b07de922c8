// Routes an app grows: `count` of them, defined before /hello (`installExtraRoutes`), and a
// route defined after all of them (`installLastRoute`), for measuring what each route costs a
// request for another path. MicroBench reads the count from EXTRA_ROUTES (bench/routes.sh).
//
// The shapes cycle through static, parameter and splat patterns under ten methods' worth of
// resources, as an app's CRUD routes do, and one route in a hundred starts with a parameter
// (`/:section/rN`), which no index on leading literal segments can set aside.
import Micro

extension BenchRoutes {
    /// Adds `count` routes, none of which matches /hello or /last.
    public static func installExtraRoutes(_ count: Int, in app: App) {
        for index in 0..<count {
            let name = "r\(index)"
            let answer: @Sendable (Request) -> String = { _ in name }
            if index % 100 == 99 {
                app.get("/:section/\(name)", answer)
                continue
            }
            switch index % 10 {
            case 0: app.get("/\(name)/items/:id", answer)
            case 1: app.post("/\(name)/items", answer)
            case 2: app.get("/\(name)", answer)
            case 3: app.get("/\(name)/files/*", answer)
            case 4: app.put("/\(name)/items/:id", answer)
            case 5: app.delete("/\(name)/items/:id", answer)
            case 6: app.get("/\(name)/items/:id/edit", answer)
            case 7: app.patch("/\(name)/items/:id", answer)
            case 8: app.get("/\(name)/about/?", answer)
            default: app.get("/api/v1/\(name)/:id", answer)
            }
        }
    }

    /// Adds GET /last, answering as /hello does; call it after every other route.
    public static func installLastRoute(in app: App) {
        app.get("/last") { request in
            request.response.contentType = "text/plain; charset=utf-8"
            return "Hello, World!"
        }
    }
}
