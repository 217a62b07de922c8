/// When a step of the app's pipeline runs (``App/pipeline``), in the order a request meets
/// them: start-up first, then each request's steps, then what runs only on an error or while
/// a template renders.
public enum PipelineStage: Int, Sendable, CaseIterable, Comparable {
    /// A check of the final settings when the app is built for serving: a problem stops it.
    case startupCheck
    /// Work done once before the first request (a database's migrations).
    case preparation
    /// The public folder's files, answered before anything else of the app runs.
    case staticFiles
    /// A check of the session a request's cookie brings: a session it refuses is over.
    case sessionCheck
    /// A check of who a request comes from that every request meets (a trusted proxy's
    /// header naming the person), before its credentials and its CSRF token are checked.
    case identityCheck
    /// A check of the credentials in a request's `Authorization` header.
    case credentialCheck
    /// The CSRF token of a state-changing request, before any of the app's own code.
    case csrfCheck
    /// An `around` block: the filters and route run inside it.
    case around
    /// A `before` filter.
    case beforeFilter
    /// A route: the first that matches answers.
    case route
    /// An `after` filter.
    case afterFilter
    /// An error handler: the page for an error a step threw.
    case errorHandler
    /// A value every template can name, made when a template first looks it up.
    case templateValue

    /// The stage in a few words, as ``App/describe()`` writes it.
    public var name: String {
        switch self {
        case .startupCheck: "start-up check"
        case .preparation: "preparation"
        case .staticFiles: "static files"
        case .sessionCheck: "session check"
        case .identityCheck: "identity check"
        case .credentialCheck: "credential check"
        case .csrfCheck: "CSRF check"
        case .around: "around"
        case .beforeFilter: "before"
        case .route: "route"
        case .afterFilter: "after"
        case .errorHandler: "error"
        case .templateValue: "template value"
        }
    }

    /// When the stage's steps run, as ``App/describe()`` heads them.
    public var occasion: String {
        switch self {
        case .startupCheck, .preparation: "At start-up"
        case .staticFiles, .sessionCheck, .identityCheck, .credentialCheck, .csrfCheck, .around, .beforeFilter, .route, .afterFilter: "Each request"
        case .errorHandler: "On an error"
        case .templateValue: "While a template renders"
        }
    }

    public static func < (lhs: Self, rhs: Self) -> Bool { lhs.rawValue < rhs.rawValue }
}
