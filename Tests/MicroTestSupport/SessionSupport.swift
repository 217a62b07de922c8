import Foundation
import Logging
import MicroAuth
import MicroCore
import Testing

/// The session cookie's name.
package let sessionCookie = "micro.session"

/// A test app (see ``testApp(publicFolder:environment:configure:)``) whose views folder is a
/// path that does not exist, so that nobody's work in progress in the repository's `views/`
/// can break it.
package func isolatedApp(environment: Environment = .test, logger: Logger = .quietForTests, configure: (inout Settings) -> Void = { _ in }) -> App {
    testApp(environment: environment, logger: logger) { settings in
        settings.views = nil
        configure(&settings)
    }
}

/// The value of the first `<input ... name="_csrf" value="...">` of an HTML page.
package func csrfFieldValue(in html: String) -> String? {
    guard let field = html.range(of: #"name="_csrf" value="[^"]*""#, options: .regularExpression) else { return nil }
    return html[field].split(separator: "\"").last.map(String.init)
}

/// Starts `app`, expecting a ``ConfigurationError``, and returns it; records an issue (and
/// stops the server) when the app starts after all.
package func startFailure(_ app: App, sourceLocation: SourceLocation = #_sourceLocation) async -> ConfigurationError? {
    do {
        let server = try await app.start()
        await server.shutdown()
        Issue.record("The app started; expected a ConfigurationError.", sourceLocation: sourceLocation)
        return nil
    } catch let error as ConfigurationError {
        return error
    } catch {
        Issue.record("Expected a ConfigurationError, got \(error)", sourceLocation: sourceLocation)
        return nil
    }
}
