#if OpenIdConnect
import Foundation
import JWTKit
import Logging

/// One provider while the app runs: its discovery document (fetched when first needed, and
/// again after a failure), its key set (cached; refetched for an unknown `kid` at most once
/// per ``keyRefetchInterval``), and the token endpoint.
actor OpenIdProvider {
    let issuer: String
    let http: ProviderHttpClient
    let clock: @Sendable () -> Date
    /// The shortest time between two key-set fetches made for an unknown `kid`.
    let keyRefetchInterval: TimeInterval
    /// Where what an operator should know of the provider's document is said.
    let logger: Logger?

    private var metadata: ProviderMetadata?
    private var metadataFetched: Date?
    private var discovery: Task<ProviderMetadata, any Error>?
    private var keys: [String: JWK]?
    /// When the key set was last fetched again for an unknown `kid` (the first fetch is not one).
    private var lastRefetch: Date?
    /// How many times the key set was fetched (the tests count refetches).
    private(set) var keyFetches = 0
    /// The fetch of a key set none is cached of yet, which concurrent callers share.
    private var firstFetch: Task<Void, any Error>?
    /// When such a fetch last failed: for a few seconds after, callers are answered at once.
    private var lastFailedFetch: Date?
    /// How long a failed first fetch answers for the next ones: a flood of tokens while the
    /// key set is unreachable costs the provider one fetch each time, not one per token.
    static let failureBackoff: TimeInterval = 5

    init(issuer: String, http: ProviderHttpClient, keyRefetchInterval: TimeInterval = 60, logger: Logger? = nil, clock: @escaping @Sendable () -> Date) {
        self.issuer = issuer
        self.logger = logger
        self.http = http
        self.keyRefetchInterval = keyRefetchInterval
        self.clock = clock
    }

    /// The discovery document, fetched when first needed and again a day later; concurrent
    /// callers share one fetch, and a failed fetch is tried again by the next caller.
    func discover() async throws(OpenIdConnectError) -> ProviderMetadata {
        if let metadata, let fetched = metadataFetched, clock().timeIntervalSince(fetched) < 86_400 { return metadata }
        let task: Task<ProviderMetadata, any Error>
        if let discovery {
            task = discovery
        } else {
            let http = http
            let issuer = issuer
            task = Task { try await Self.fetchMetadata(issuer: issuer, http: http) }
            discovery = task
        }
        do {
            let fetched = try await task.value
            if discovery == task {
                discovery = nil
                metadata = fetched
                metadataFetched = clock()
                if fetched.backchannelLogoutSupported != true {
                    logger?.notice(
                        "The provider at \(issuer) does not say it sends back-channel logouts (backchannel_logout_supported): a person it signs out, or disables, keeps their sessions here until they end by time")
                }
            }
            return fetched
        } catch {
            if discovery == task { discovery = nil }
            // A document fetched before stays in use while the provider is away.
            if let metadata { return metadata }
            throw error as? OpenIdConnectError ?? .providerUnavailable("discovery: \(error)")
        }
    }

    private static func fetchMetadata(issuer: String, http: ProviderHttpClient) async throws(OpenIdConnectError) -> ProviderMetadata {
        let url = (issuer.hasSuffix("/") ? String(issuer.dropLast()) : issuer) + "/.well-known/openid-configuration"
        let answer = try await http.get(url)
        guard answer.status == 200 else {
            throw .providerUnavailable("discovery at \(url) answered \(answer.status)")
        }
        let metadata: ProviderMetadata
        do {
            metadata = try JSONDecoder().decode(ProviderMetadata.self, from: answer.body)
        } catch {
            throw .providerUnavailable("discovery at \(url) is not a discovery document: \(error)")
        }
        if let problem = metadata.problem(forIssuer: issuer) {
            throw .providerUnavailable("discovery at \(url): \(problem)")
        }
        return metadata
    }

    /// The key named `kid` (nil: the only key when the set has one); fetches the set when it
    /// has none yet, and again when the key is unknown (a rotation) unless the last such
    /// refetch was less than ``keyRefetchInterval`` ago: a stream of bogus `kid`s costs the
    /// provider at most one fetch a minute.
    func key(named kid: String?, metadata: ProviderMetadata) async throws(OpenIdConnectError) -> JWK? {
        try await key(named: kid, jwksUri: metadata.jwksUri)
    }

    /// ``key(named:metadata:)`` from the key set at `jwksUri` (a sign-in proxy's, which has
    /// no discovery document).
    func key(named kid: String?, jwksUri: String) async throws(OpenIdConnectError) -> JWK? {
        if keys == nil {
            try await fetchFirstKeys(jwksUri)
        } else if Self.pick(kid, from: keys ?? [:]) == nil {
            if let last = lastRefetch, clock().timeIntervalSince(last) < keyRefetchInterval { return nil }
            // Noted before the call: concurrent bogus kids wait their turn even while the
            // provider is slow.
            lastRefetch = clock()
            try await fetchKeys(jwksUri)
        }
        return Self.pick(kid, from: keys ?? [:])
    }

    /// Fetches the key set none is cached of: one fetch for concurrent callers, and none for a
    /// few seconds after one failed.
    private func fetchFirstKeys(_ jwksUri: String) async throws(OpenIdConnectError) {
        let task: Task<Void, any Error>
        if let running = firstFetch {
            task = running
        } else {
            if let failed = lastFailedFetch, clock().timeIntervalSince(failed) < Self.failureBackoff {
                throw .providerUnavailable("the key set at \(jwksUri) could not be fetched a moment ago")
            }
            task = Task { try await self.fetchKeys(jwksUri) }
            firstFetch = task
        }
        do {
            try await task.value
            if firstFetch == task { firstFetch = nil }
        } catch {
            if firstFetch == task {
                firstFetch = nil
                lastFailedFetch = clock()
            }
            throw error as? OpenIdConnectError ?? .providerUnavailable("the key set at \(jwksUri): \(error)")
        }
    }

    private static func pick(_ kid: String?, from keys: [String: JWK]) -> JWK? {
        if let kid { return keys[kid] }
        return keys.count == 1 ? keys.first?.value : nil
    }

    private func fetchKeys(_ jwksUri: String) async throws(OpenIdConnectError) {
        keyFetches += 1
        let answer = try await http.get(jwksUri)
        guard answer.status == 200 else {
            throw .providerUnavailable("the key set at \(jwksUri) answered \(answer.status)")
        }
        struct KeySet: Decodable { let keys: [Lenient] }
        // One key jwt-kit cannot read (another key type, say) does not hide the others.
        struct Lenient: Decodable {
            let key: JWK?
            init(from decoder: any Decoder) throws { key = try? JWK(from: decoder) }
        }
        let set: KeySet
        do {
            set = try JSONDecoder().decode(KeySet.self, from: answer.body)
        } catch {
            throw .rejected("the key set at \(jwksUri) is not a JWKS: \(error)")
        }
        var keys: [String: JWK] = [:]
        for (index, key) in set.keys.compactMap(\.key).enumerated() {
            keys[key.keyIdentifier?.string ?? "#\(index)"] = key
        }
        self.keys = keys
    }
}
#endif
