import Foundation
import Logging
import MicroAuth
import MicroCore

/// An app for tests: test environment, no access log, no public folder unless given.
package func testApp(
    publicFolder: String? = nil, environment: Environment = .test, logger: Logger = .quietForTests, configure: (inout Settings) -> Void = { _ in }
) -> App {
    var settings = Settings()
    settings.environment = environment
    settings.accessLog = false
    settings.publicFolder = publicFolder
    settings.port = 0
    // Nobody's templates: tests that render bring their own views folder.
    settings.views = nil
    // Development keeps its generated secret in a file: not in the working tree.
    settings.sessions.secretFile = FileManager.default.temporaryDirectory.appendingPathComponent("micro-test-secret-\(UUID().uuidString)").path
    if environment == .production {
        settings.sessions.secret = "5f0c9e2a7b1d4863a9e0f7c2b6d1358e4a7c0f9b2e6d1a3c8b5f7e0d2c4a9b61"
        // The test users' password is the README's demo one; DemoPasswordTests turn this off.
        settings.variables["MICRO_ALLOW_DEMO_USERS"] = "1"
    }
    configure(&settings)
    return App(settings: settings, logger: logger)
}
