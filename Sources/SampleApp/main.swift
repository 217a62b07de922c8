import Micro

let app = App()

app.get("/") { _ in
    HomePage.html
}

try await app.run()
