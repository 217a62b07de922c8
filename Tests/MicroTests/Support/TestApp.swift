import Foundation
import Micro

/// An app for tests: test environment, no access log, no public folder unless given.
func testApp(publicFolder: String? = nil, environment: Environment = .test, configure: (inout Settings) -> Void = { _ in }) -> App {
    var settings = Settings()
    settings.environment = environment
    settings.accessLog = false
    settings.publicFolder = publicFolder
    settings.port = 0
    // Nobody's templates: tests that render bring their own views folder.
    settings.views = FileManager.default.temporaryDirectory.appendingPathComponent("micro-no-views-\(UUID().uuidString)").path
    // Development keeps its generated secret in a file: not in the working tree.
    settings.sessions.secretFile = FileManager.default.temporaryDirectory.appendingPathComponent("micro-test-secret-\(UUID().uuidString)").path
    if environment == .production { settings.sessions.secret = String(repeating: "0123456789abcdef", count: 4) }
    configure(&settings)
    return App(settings: settings)
}
