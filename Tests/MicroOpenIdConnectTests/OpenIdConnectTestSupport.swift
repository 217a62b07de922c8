import Synchronization
import Foundation
import Logging
import Micro
import MicroOpenIdConnect
import MicroTesting
import Testing

/// An app with password sign-in and single sign-on at `provider`, and a protected page that
/// names the user and their roles.
func ssoApp(
    _ provider: HostileProvider, users: any UserStore = TestUsers([User(username: "ann"), User(username: "cy", roles: ["admin"])]),
    clock: (@Sendable () -> Date)? = nil, passwords: Bool = true, log: LogRecorder? = nil, activity: MemoryActivityLog? = nil,
    accounts: Accounts? = nil, configure: (inout OpenIdConnect) -> Void = { _ in }
) -> App {
    var settings = Settings()
    settings.environment = .test
    settings.accessLog = false
    settings.publicFolder = nil
    settings.views = nil
    settings.port = 0
    settings.sessions.secretFile = FileManager.default.temporaryDirectory.appendingPathComponent("micro-oidc-test-\(UUID().uuidString)").path
    if let clock { settings.clock = clock }
    let app = App(settings: settings, logger: log?.logger ?? Logger(label: "oidc-test") { _ in SwiftLogNoOpLogHandler() })
    var authentication = Authentication(users: users)
    // A pool of its own: the suite's floods of the shared one answer look-ups with a 503.
    authentication.hasher = PasswordHasher(threads: 1)
    authentication.acceptsPasswords = passwords
    app.use(authentication)
    if let accounts {
        app.use(accounts)
    } else if let activity {
        var accounts = Accounts()
        accounts.activity = activity
        app.use(accounts)
    }
    var sso = OpenIdConnect(issuer: provider.issuer, clientId: HostileProvider.clientId, clientSecret: HostileProvider.clientSecret)
    sso.name = "Test IdP"
    sso.timeout = .seconds(3)
    configure(&sso)
    app.use(sso)
    app.get("/protected") { request in
        let user = try request.authenticate()
        return "Hello \(user.username) [\(user.roles.joined(separator: ","))] \(request.flash["notice"] ?? "")"
    }
    return app
}

/// The browser's way through: POST /auth/oidc, the provider approves, the callback.
func signInThroughProvider(_ client: TestClient, _ provider: HostileProvider) async throws -> TestResponse {
    let start = try await client.post("/auth/oidc", form: [:])
    try #require(start.status == .seeOther, "POST /auth/oidc answered \(start.status): \(start.text)")
    let callback = try provider.approve(try #require(start.location))
    return try await client.get(callback)
}

/// The browser's way through to the page that asks for the store user's password.
func waitForProof(_ client: TestClient, _ provider: HostileProvider) async throws -> TestResponse {
    let callback = try await signInThroughProvider(client, provider)
    try #require(callback.status == .seeOther, "the callback answered \(callback.status): \(callback.text)")
    try #require(callback.location == "/auth/oidc/link", "the callback went to \(callback.location ?? "nowhere")")
    return try await client.get("/auth/oidc/link")
}

/// A clock the tests move.
final class MovableClock: Sendable {
    private let offset = Mutex<TimeInterval>(0)
    func advance(_ seconds: TimeInterval) { offset.withLock { $0 += seconds } }
    var now: @Sendable () -> Date { { [self] in Date().addingTimeInterval(offset.withLock { $0 }) } }
}
