import Metrics
import NIOHTTP1

/// The app's metrics, through swift-metrics (see ``Settings/metricsFactory``): requests by
/// route and status and their durations. Plugins make their own with the same backend
/// (``App/addMetrics(_:)``).
///
/// Every dimension has few values, whatever clients send: a route is its pattern as written
/// (`/notes/:id`), never the path, and a method outside the registered ones is `other`. The
/// metric objects are made once for each combination seen and kept, so a request costs a
/// dictionary look-up under a lock besides what the backend does; with no backend (the
/// default factory, which records nothing) it costs nothing.
final class AppMetrics: Sendable {
    /// How a request's route is named when no route answered it.
    enum Route {
        /// What no route answered: none matched, or a filter stopped the request before one ran.
        static let unmatched = "unmatched"
        /// A file from the public folder.
        static let `static` = "static"
    }

    private struct RequestKey: Hashable {
        var method: String
        var route: String
        var status: Int
    }

    private struct RouteKey: Hashable {
        var method: String
        var route: String
    }

    private struct Recorded {
        var counters: [RequestKey: Counter] = [:]
        var timers: [RouteKey: CoreMetrics.Timer] = [:]
    }

    /// Whether anything is recorded: not with the no-op factory.
    let isEnabled: Bool
    /// The backend: ``Settings/metricsFactory``, or swift-metrics' bootstrapped one.
    let factory: any MetricsFactory
    private let recorded = Locked(Recorded())

    /// Metrics made by `factory`, or by swift-metrics' bootstrapped one when nil.
    init(factory: (any MetricsFactory)?) {
        let factory = factory ?? MetricsSystem.factory
        self.factory = factory
        isEnabled = !(factory is NOOPMetricsHandler)
    }

    /// Counts a request answered with `status` by `route` (a pattern, or one of ``Route``), and
    /// records how long it took.
    func request(method: HTTPMethod, route: String, status: Int, nanoseconds: Int64) {
        let method = Self.name(of: method)
        let (counter, timer) = recorded.withLock { recorded -> (Counter, CoreMetrics.Timer) in
            let key = RequestKey(method: method, route: route, status: status)
            let counter = recorded.counters[key] ?? {
                let counter = Counter(
                    label: "micro_requests_total",
                    dimensions: [("method", method), ("route", route), ("status", String(status))], factory: factory)
                recorded.counters[key] = counter
                return counter
            }()
            let routeKey = RouteKey(method: method, route: route)
            let timer = recorded.timers[routeKey] ?? {
                let timer = CoreMetrics.Timer(
                    label: "micro_request_duration_seconds", dimensions: [("method", method), ("route", route)], factory: factory)
                recorded.timers[routeKey] = timer
                return timer
            }()
            return (counter, timer)
        }
        // The backend's own work, outside the lock.
        counter.increment()
        timer.recordNanoseconds(nanoseconds)
    }

    /// The method's name, or `other` for one outside NIO's list: a client cannot make a new
    /// series by sending a method of its own.
    static func name(of method: HTTPMethod) -> String {
        if case .RAW = method { return "other" }
        return method.rawValue
    }
}
