import Micro

let app = App()
SampleRoutes.install(in: app)
try await app.run()
