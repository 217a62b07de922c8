import Metrics
import MicroCore

/// The sign-in flow's metrics, made with the app's backend when the app is built
/// (``App/addMetrics(_:)``), every combination at once, so that a backend exports each at zero
/// before the first sign-in:
/// - `micro_sign_ins_total` (counter; `via`: `form` or `basic`, `outcome`: `success`,
///   `failure`, `throttled` or `unavailable`): each check of a password; a script's HTTP Basic
///   credentials found in the cache are not checked again and not counted.
/// - `micro_throttled_total` (counter; `action`: `refused` with a 429, or `delayed` behind
///   checks in flight for the same name or address).
final class SignInMetrics: Sendable {
    /// Through which door a sign-in came.
    enum Via: String, CaseIterable {
        /// ``Request/signIn(username:password:)``: the sign-in form, or a route of the app's own.
        case form
        /// A script's HTTP Basic credentials (only those checked, not those found in the cache).
        case basic
    }

    /// How a sign-in attempt ended.
    enum Outcome: String, CaseIterable {
        case success, failure, throttled, unavailable
    }

    /// What the throttle did to an attempt.
    enum ThrottleAction: String, CaseIterable {
        /// Refused with a 429: over a limit.
        case refused
        /// Held until checks in flight for the same name or address finished.
        case delayed
    }

    /// Counters that record nothing, for an app built without ``Authentication``'s metrics.
    static let none = SignInMetrics(factory: NOOPMetricsHandler.instance)

    private let signIns: [Via: [Outcome: Counter]]
    private let throttled: [ThrottleAction: Counter]

    init(factory: any MetricsFactory) {
        var signIns: [Via: [Outcome: Counter]] = [:]
        for via in Via.allCases {
            for outcome in Outcome.allCases {
                signIns[via, default: [:]][outcome] = Counter(
                    label: "micro_sign_ins_total", dimensions: [("via", via.rawValue), ("outcome", outcome.rawValue)], factory: factory)
            }
        }
        self.signIns = signIns
        var throttled: [ThrottleAction: Counter] = [:]
        for action in ThrottleAction.allCases {
            throttled[action] = Counter(label: "micro_throttled_total", dimensions: [("action", action.rawValue)], factory: factory)
        }
        self.throttled = throttled
    }

    /// Counts the sign-in `check` makes (nil: a wrong name or password), by how it ends.
    func signIn<T>(via: Via, _ check: () async throws -> T?) async throws -> T? {
        let result: T?
        do {
            result = try await check()
        } catch let error as CancellationError {
            throw error  // the client left: no outcome
        } catch {
            let throttled = (error as? HttpError)?.status == .tooManyRequests
            count(via: via, throttled ? .throttled : .unavailable)
            throw error
        }
        count(via: via, result == nil ? .failure : .success)
        return result
    }

    /// Counts an attempt the throttle refused or held back.
    func throttle(_ action: ThrottleAction) {
        throttled[action]?.increment()
    }

    private func count(via: Via, _ outcome: Outcome) {
        signIns[via]?[outcome]?.increment()
    }
}
