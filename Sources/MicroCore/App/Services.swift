import Metrics

/// What a request can reach of the app beyond its routes: settings, sessions, views, CSRF
/// protection, security headers. Built once when the app starts; each request holds a
/// reference to it (copying these per request showed in profiles).
package final class Services: Sendable {
    let settings: Settings
    package let sessions: Sessions
    package let views: Views
    let csrf: CsrfProtection
    let securityHeaders: SecurityHeaders
    /// The reverse proxies whose forwarding headers are believed.
    let proxies: TrustedProxies
    /// The hosts the app answers for.
    let allowedHosts: AllowedHosts
    /// ``Settings/publicUrl``, read once.
    let publicUrl: PublicUrl?
    /// Values plugins add to every template, by name (authentication adds the user).
    let templateValues: [String: TemplateValue]
    /// Services plugins registered, by type.
    let registered: [ObjectIdentifier: any Sendable]
    /// How each route group answers, by its prefix.
    let groupAnswers: [(scope: PathScope, answers: RouteGroup.Answers)]
    /// The app's metrics.
    let metrics: AppMetrics
    /// The session values that mean someone is signed in (``App/addSignedInSessionKey(_:)``).
    let signedInSessionKeys: [String]

    init(
        settings: Settings, sessions: Sessions, views: Views, csrf: CsrfProtection, securityHeaders: SecurityHeaders,
        templateValues: [String: TemplateValue], registered: [ObjectIdentifier: any Sendable],
        metricMakers: [ObjectIdentifier: @Sendable (any MetricsFactory) -> any Sendable] = [:],
        signedInSessionKeys: [String] = [],
        groupAnswers: [(scope: PathScope, answers: RouteGroup.Answers)] = []
    ) {
        self.settings = settings
        self.sessions = sessions
        self.views = views
        self.csrf = csrf
        self.securityHeaders = securityHeaders
        proxies = TrustedProxies(settings.trustedProxies, prefixes: settings.forwardedPrefixes)
        publicUrl = settings.parsedPublicUrl
        allowedHosts = AllowedHosts(settings.allowedHosts, publicHost: publicUrl?.host)
        self.templateValues = templateValues
        self.groupAnswers = groupAnswers
        self.signedInSessionKeys = signedInSessionKeys
        let metrics = AppMetrics(factory: settings.metricsFactory)
        self.metrics = metrics
        self.registered = registered.merging(metricMakers.mapValues { make in make(metrics.factory) }) { _, made in made }
    }

    /// How the innermost group holding `path` answers; pages outside every group.
    func answers(for path: String) -> RouteGroup.Answers {
        var best: (length: Int, answers: RouteGroup.Answers) = (0, .pages)
        for (scope, answers) in groupAnswers where scope.prefix.utf8.count > best.length && scope.contains(path) {
            best = (scope.prefix.utf8.count, answers)
        }
        return best.answers
    }

    /// The service of type `T` a plugin registered.
    package func service<T: Sendable>(_ type: T.Type) -> T? {
        registered[ObjectIdentifier(type)] as? T
    }
}
