import Micro

/// The sample app's routes, apart from `main.swift` so that tests can serve them.
enum SampleRoutes {
    static func install(in app: App) {
        app.get("/") { _ in
            HomePage.html
        }
    }
}
