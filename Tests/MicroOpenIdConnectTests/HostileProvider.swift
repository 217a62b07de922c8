import Testing
import Crypto
import CryptoExtras
import Foundation
import Logging
import Micro
import Synchronization

/// An OpenID provider the tests run on 127.0.0.1: discovery, a key set (RSA and P-256) and
/// a token endpoint that checks the client, the code (once), the redirect URI and PKCE, then
/// issues an ID token spoiled as the test asks. Its authorization endpoint is played by
/// ``approve(_:)``, which approves at once and gives the callback the browser would follow.
final class HostileProvider: Sendable {
    /// How the next ID token is spoiled.
    enum Spoil: Sendable {
        case none, wrongSignature, wrongAudience, wrongIssuer, wrongNonce, expired, issuedInFuture, algNone
        case hs256WithPublicKey, jkuHeader, embeddedJwk, unknownKid, bogusKid, es256, severalAudiencesWithoutAzp, noKid
    }

    struct Grant: Sendable {
        let nonce: String
        let challenge: String
        let redirectUri: String
    }

    struct State: Sendable {
        var issuer = ""
        var grants: [String: Grant] = [:]
        var spoil = Spoil.none
        var claims: [String: ClaimValue] = ["sub": .string("sub-ann"), "preferred_username": .string("ann"), "email": .string("ann@example.com"), "email_verified": .bool(true), "name": .string("Ann Example")]
        var rotated = false
        var down = false
        var authMethods: [String]? = nil
        var jwksFetches = 0
        /// Every request for the key set, answered or not.
        var jwksAttempts = 0
        var tokenRequests: [[String: String]] = []
        var tokenAuthorization: [String?] = []
        /// Added to the wall time the tokens are stamped with: the app's clock, moved.
        var clockOffset: TimeInterval = 0
    }

    enum ClaimValue: Sendable, Encodable {
        case string(String), bool(Bool), number(Double), strings([String])
        /// An object whose members are these names, each an empty object: a logout token's `events`.
        case eventNames([String])
        func encode(to encoder: any Encoder) throws {
            var container = encoder.singleValueContainer()
            switch self {
            case .eventNames(let names): try container.encode(Dictionary(uniqueKeysWithValues: names.map { ($0, [String: String]()) }))
            case .string(let value): try container.encode(value)
            case .bool(let value): try container.encode(value)
            case .number(let value): try container.encode(value)
            case .strings(let value): try container.encode(value)
            }
        }
    }

    static let clientId = "micro-tests"
    static let clientSecret = "s3cret:with/odd chars"
    /// Made once for the whole run: RSA key generation is slow in a debug build.
    static let rsaKey = try! _RSA.Signing.PrivateKey(keySize: .bits2048)
    static let rotatedRsaKey = try! _RSA.Signing.PrivateKey(keySize: .bits2048)
    static let attackerRsaKey = try! _RSA.Signing.PrivateKey(keySize: .bits2048)
    static let ecKey = P256.Signing.PrivateKey()

    let state = Mutex(State())
    private let server: Mutex<RunningServer?> = Mutex(nil)

    var issuer: String { state.withLock { $0.issuer } }
    var jwksFetches: Int { state.withLock { $0.jwksFetches } }

    /// Starts it on a free port of 127.0.0.1.
    static func start() async throws -> HostileProvider {
        let provider = HostileProvider()
        var settings = Settings()
        settings.environment = .test
        settings.accessLog = false
        settings.views = nil
        settings.publicFolder = nil
        settings.port = 0
        settings.host = "127.0.0.1"
        settings.sessions.secretFile = FileManager.default.temporaryDirectory.appendingPathComponent("micro-oidc-provider-\(UUID().uuidString)").path
        let app = App(settings: settings, logger: Logger(label: "hostile-provider") { _ in SwiftLogNoOpLogHandler() })
        app.skipCsrf("/token")
        app.get("/.well-known/openid-configuration") { request in try provider.discovery(request) }
        app.get("/jwks") { request in try provider.jwks(request) }
        app.post("/token") { request in try provider.token(request) }
        let running = try await app.start()
        provider.server.withLock { $0 = running }
        provider.state.withLock { $0.issuer = "http://127.0.0.1:\(running.port)" }
        return provider
    }

    func stop() async {
        if let running = server.withLock({ $0 }) { await running.shutdown() }
    }

    private func discovery(_ request: Request) throws -> String {
        let (issuer, down, methods) = state.withLock { ($0.issuer, $0.down, $0.authMethods) }
        if down { try request.halt(.serviceUnavailable, "down") }
        request.response.contentType = "application/json"
        var document: [String: any Sendable] = [
            "issuer": issuer, "authorization_endpoint": issuer + "/authorize", "token_endpoint": issuer + "/token",
            "jwks_uri": issuer + "/jwks", "end_session_endpoint": issuer + "/logout",
            "id_token_signing_alg_values_supported": ["RS256", "ES256", "HS256", "none"],
            "response_types_supported": ["code"], "subject_types_supported": ["public"],
        ]
        if let methods { document["token_endpoint_auth_methods_supported"] = methods }
        return String(decoding: try JSONSerialization.data(withJSONObject: document), as: UTF8.self)
    }

    private func jwks(_ request: Request) throws -> String {
        let (down, rotated) = state.withLock { state -> (Bool, Bool) in
            state.jwksAttempts += 1
            if !state.down { state.jwksFetches += 1 }
            return (state.down, state.rotated)
        }
        if down { try request.halt(.serviceUnavailable, "down") }
        request.response.contentType = "application/json"
        let rsa = rotated ? Self.rotatedRsaKey : Self.rsaKey
        let primitives = try rsa.publicKey.getKeyPrimitives()
        let point = Self.ecKey.publicKey.rawRepresentation
        let keys: [[String: String]] = [
            ["kty": "RSA", "kid": rotated ? "rsa-2" : "rsa-1", "use": "sig", "alg": "RS256", "n": Self.base64Url(primitives.modulus), "e": Self.base64Url(primitives.publicExponent)],
            ["kty": "EC", "kid": "ec-1", "use": "sig", "crv": "P-256", "x": Self.base64Url(point.prefix(32)), "y": Self.base64Url(point.suffix(32))],
        ]
        return String(decoding: try JSONSerialization.data(withJSONObject: ["keys": keys]), as: UTF8.self)
    }

    /// Plays the authorization endpoint: checks the request as a strict provider would,
    /// approves it, and returns the callback path and query the browser is sent to.
    func approve(_ location: String) throws -> String {
        let url = try #require(URLComponents(string: location))
        let query = Dictionary((url.queryItems ?? []).map { ($0.name, $0.value ?? "") }, uniquingKeysWith: { a, _ in a })
        guard location.hasPrefix(issuer + "/authorize?"), query["response_type"] == "code", query["client_id"] == Self.clientId,
            Set((query["scope"] ?? "").split(separator: " ")).isSuperset(of: ["openid", "email", "profile"]),
            query["code_challenge_method"] == "S256", let challenge = query["code_challenge"], challenge.count == 43,
            let nonce = query["nonce"], let state = query["state"], let redirectUri = query["redirect_uri"]
        else { throw ProviderRefusal(reason: "bad authorization request: \(location)") }
        let code = UUID().uuidString
        self.state.withLock { $0.grants[code] = Grant(nonce: nonce, challenge: challenge, redirectUri: redirectUri) }
        let callback = try #require(URLComponents(string: redirectUri))
        return callback.path + "?code=\(code)&state=\(state)"
    }

    struct ProviderRefusal: Error { let reason: String }

    private func token(_ request: Request) throws -> String {
        request.response.contentType = "application/json"
        let form = ["grant_type", "code", "redirect_uri", "code_verifier", "client_id", "client_secret"].reduce(into: [String: String]()) {
            $0[$1] = request.params[$1]
        }
        let authorization = request.headers.first(name: "Authorization")
        let result = state.withLock { state -> (Grant?, Spoil, [String: ClaimValue], String, Bool, [String]?) in
            state.tokenRequests.append(form)
            state.tokenAuthorization.append(authorization)
            let grant = form["code"].flatMap { state.grants.removeValue(forKey: $0) }
            return (grant, state.spoil, state.claims, state.issuer, state.down, state.authMethods)
        }
        let (grant, spoil, claims, issuer, down, methods) = result
        if down { try request.halt(.serviceUnavailable, "{\"error\":\"temporarily_unavailable\"}") }
        // The client's credentials, as the discovery document says they travel.
        let basic = "Basic " + Data("\(Self.formEncode(Self.clientId)):\(Self.formEncode(Self.clientSecret))".utf8).base64EncodedString()
        let clientOk = methods == ["client_secret_post"]
            ? form["client_id"] == Self.clientId && form["client_secret"] == Self.clientSecret && authorization == nil
            : authorization == basic
        guard clientOk else { try request.halt(.unauthorized, "{\"error\":\"invalid_client\"}") }
        guard form["grant_type"] == "authorization_code", let grant, form["redirect_uri"] == grant.redirectUri,
            let verifier = form["code_verifier"], Self.base64Url(Data(SHA256.hash(data: Data(verifier.utf8)))) == grant.challenge
        else { try request.halt(.badRequest, "{\"error\":\"invalid_grant\"}") }
        let token = try makeToken(spoil: spoil, claims: claims, issuer: issuer, nonce: grant.nonce)
        return "{\"access_token\":\"opaque\",\"token_type\":\"Bearer\",\"expires_in\":300,\"id_token\":\"\(token)\"}"
    }

    func makeToken(spoil: Spoil, claims base: [String: ClaimValue], issuer: String, nonce: String) throws -> String {
        let now = Date().timeIntervalSince1970 + state.withLock { $0.clockOffset }
        var claims = base
        claims["iss"] = .string(spoil == .wrongIssuer ? "http://127.0.0.1:1" : issuer)
        claims["aud"] = spoil == .wrongAudience ? .string("someone-else") : spoil == .severalAudiencesWithoutAzp ? .strings([Self.clientId, "other"]) : .string(Self.clientId)
        claims["exp"] = .number(spoil == .expired ? now - 120 : now + 300)
        claims["iat"] = .number(spoil == .issuedInFuture ? now + 600 : spoil == .expired ? now - 900 : now)
        claims["nonce"] = .string(spoil == .wrongNonce ? "not-the-nonce" : nonce)
        return try sign(claims, spoil: spoil)
    }

    /// `claims` signed as the provider signs, spoiled as `spoil` says.
    func sign(_ claims: [String: ClaimValue], spoil: Spoil = .none) throws -> String {
        var header: [String: String] = ["typ": "JWT", "alg": "RS256", "kid": state.withLock { $0.rotated } ? "rsa-2" : "rsa-1"]
        switch spoil {
        case .algNone: header = ["typ": "JWT", "alg": "none", "kid": "rsa-1"]
        case .hs256WithPublicKey: header["alg"] = "HS256"
        case .jkuHeader: header["jku"] = "http://127.0.0.1:1/attacker-jwks"
        case .embeddedJwk: header["jwk"] = "{}"
        case .unknownKid: header["kid"] = "rsa-2"
        case .bogusKid: header["kid"] = "bogus-\(UUID().uuidString)"
        case .es256: header = ["typ": "JWT", "alg": "ES256", "kid": "ec-1"]
        case .noKid: header["kid"] = nil
        default: break
        }
        let input = Self.base64Url(try JSONSerialization.data(withJSONObject: header, options: .sortedKeys)) + "."
            + Self.base64Url(try JSONEncoder().encode(claims))
        let signature: Data
        switch spoil {
        case .algNone:
            signature = Data()
        case .hs256WithPublicKey:
            let publicKey = SymmetricKey(data: Data(Self.rsaKey.publicKey.pemRepresentation.utf8))
            signature = Data(HMAC<SHA256>.authenticationCode(for: Data(input.utf8), using: publicKey))
        case .es256:
            signature = try Self.ecKey.signature(for: Data(input.utf8)).rawRepresentation
        case .wrongSignature, .jkuHeader:
            signature = try Self.attackerRsaKey.signature(for: Data(input.utf8), padding: .insecurePKCS1v1_5).rawRepresentation
        case .unknownKid:
            signature = try Self.rotatedRsaKey.signature(for: Data(input.utf8), padding: .insecurePKCS1v1_5).rawRepresentation
        default:
            let key = state.withLock { $0.rotated } ? Self.rotatedRsaKey : Self.rsaKey
            signature = try key.signature(for: Data(input.utf8), padding: .insecurePKCS1v1_5).rawRepresentation
        }
        return input + "." + Self.base64Url(signature)
    }

    static func base64Url(_ data: some DataProtocol) -> String {
        Data(data).base64EncodedString().replacingOccurrences(of: "+", with: "-").replacingOccurrences(of: "/", with: "_").replacingOccurrences(of: "=", with: "")
    }

    static func formEncode(_ text: String) -> String {
        text.addingPercentEncoding(withAllowedCharacters: CharacterSet(charactersIn: "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789-._~")) ?? ""
    }
}
