#if OpenIdConnect
import Crypto
import Foundation
import MicroCore

/// A sign-in sent to the provider and not back yet: its `state`, `nonce` and PKCE verifier,
/// kept in the (encrypted) session cookie, so that a flow started on one instance completes
/// on another.
struct PendingFlow: Codable, Sendable, Equatable {
    let state: String
    let nonce: String
    let verifier: String
    /// When it started, seconds since 1970.
    let started: Int64

    /// The session key of the pending flows.
    static let sessionKey = "_oidc_flows"

    /// A flow with fresh random values.
    static func start(at now: Int64) -> PendingFlow {
        PendingFlow(state: random(), nonce: random(), verifier: random(), started: now)
    }

    /// The PKCE `code_challenge` of the verifier (S256).
    var challenge: String { Self.base64Url(Data(SHA256.hash(data: Data(verifier.utf8)))) }

    /// 32 random bytes, Base64url: 43 characters (a flow's values, a sign-in's name).
    static func random() -> String {
        base64Url(SymmetricKey(size: .bits256).withUnsafeBytes { Data($0) })
    }

    static func base64Url(_ data: Data) -> String {
        data.base64EncodedString().replacingOccurrences(of: "+", with: "-").replacingOccurrences(of: "/", with: "_")
            .replacingOccurrences(of: "=", with: "")
    }
}

extension Session {
    /// Adds `flow` to the session's pending flows: at most `limit`, the oldest dropped, and
    /// none older than `lifetime` seconds kept.
    func addPendingFlow(_ flow: PendingFlow, limit: Int, lifetime: Int64) throws {
        var flows = (get(PendingFlow.sessionKey, as: [PendingFlow].self) ?? []).filter { flow.started - $0.started < lifetime }
        flows.append(flow)
        try set(PendingFlow.sessionKey, Array(flows.suffix(max(1, limit))))
    }

    /// Takes the pending flow `state` names out of the session, once: nil when there is none
    /// (missing, another browser's, used already) or it is older than `lifetime` seconds.
    func takePendingFlow(state: String, now: Int64, lifetime: Int64) throws -> PendingFlow? {
        let flows = get(PendingFlow.sessionKey, as: [PendingFlow].self) ?? []
        guard let index = flows.firstIndex(where: { ConstantTime.equal($0.state, state) }) else { return nil }
        let flow = flows[index]
        let rest = flows.enumerated().filter { $0.offset != index && now - $0.element.started < lifetime }.map(\.element)
        if rest.isEmpty { remove(PendingFlow.sessionKey) } else { try set(PendingFlow.sessionKey, rest) }
        guard now - flow.started < lifetime, flow.started <= now + 60 else { return nil }
        return flow
    }
}
#endif
