import Micro

/// An app for tests: test environment, no access log, no public folder unless given.
func testApp(publicFolder: String? = nil, environment: Environment = .test, configure: (inout Settings) -> Void = { _ in }) -> App {
    var settings = Settings()
    settings.environment = environment
    settings.accessLog = false
    settings.publicFolder = publicFolder
    settings.port = 0
    if environment == .production { settings.sessions.secret = String(repeating: "0123456789abcdef", count: 4) }
    configure(&settings)
    return App(settings: settings)
}
