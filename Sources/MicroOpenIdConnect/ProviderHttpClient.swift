#if OpenIdConnect
import AsyncHTTPClient
import Foundation
import NIOCore
import NIOHTTP1

/// Micro's outbound calls to the provider (discovery, keys, token endpoint): each bounded in
/// time and size, no redirect followed, TLS verified against the system's roots.
struct ProviderHttpClient: Sendable {
    /// One client for the process: never shut down, so it lives as long as the process.
    private static let shared: HTTPClient = {
        var pool = HTTPClient.Configuration.ConnectionPool(idleTimeout: .seconds(60))
        // A refused connection fails the call at once (a 503 the person can retry) instead of
        // being retried with backoff until the deadline, with the sign-in page waiting.
        pool.retryConnectionEstablishment = false
        return HTTPClient(
            eventLoopGroupProvider: .singleton,
            configuration: HTTPClient.Configuration(
                redirectConfiguration: .disallow,
                timeout: .init(connect: .seconds(3), read: .seconds(5)),
                connectionPool: pool,
                decompression: .disabled))
    }()

    /// The whole time one call may take.
    var timeout: Duration
    /// The largest body read; a longer one fails the call.
    var maximumBodySize: Int

    /// A response: the status and the whole body.
    struct Answer: Sendable {
        let status: Int
        let body: Data
        let contentType: String?
    }

    /// `GET url`.
    func get(_ url: String) async throws(OpenIdConnectError) -> Answer {
        var request = HTTPClientRequest(url: url)
        request.headers.add(name: "Accept", value: "application/json")
        return try await send(request, describing: "GET \(url)")
    }

    /// `POST url` with a form body.
    func postForm(_ url: String, fields: [(String, String)], headers: [(String, String)]) async throws(OpenIdConnectError) -> Answer {
        var request = HTTPClientRequest(url: url)
        request.method = .POST
        request.headers.add(name: "Accept", value: "application/json")
        request.headers.add(name: "Content-Type", value: "application/x-www-form-urlencoded")
        for (name, value) in headers { request.headers.add(name: name, value: value) }
        let body = fields.map { FormEncoding.encode($0.0) + "=" + FormEncoding.encode($0.1) }.joined(separator: "&")
        request.body = .bytes(ByteBuffer(string: body))
        return try await send(request, describing: "POST \(url)")
    }

    private func send(_ request: HTTPClientRequest, describing what: String) async throws(OpenIdConnectError) -> Answer {
        let milliseconds = timeout.components.seconds * 1000 + timeout.components.attoseconds / 1_000_000_000_000_000
        let limit = maximumBodySize
        do {
            let response = try await Self.shared.execute(request, timeout: .milliseconds(milliseconds))
            if let length = response.headers.first(name: "Content-Length").flatMap(Int.init), length > limit {
                throw OpenIdConnectError.rejected("\(what): the answer is \(length) bytes, more than the \(limit) read")
            }
            let body = try await response.body.collect(upTo: limit)
            return Answer(status: Int(response.status.code), body: Data(body.readableBytesView), contentType: response.headers.first(name: "Content-Type"))
        } catch let error as OpenIdConnectError {
            throw error
        } catch is NIOTooManyBytesError {
            throw .rejected("\(what): the answer is longer than the \(limit) bytes read")
        } catch {
            throw .providerUnavailable("\(what): \(error)")
        }
    }
}

/// `application/x-www-form-urlencoded` and query values: everything but the unreserved
/// characters percent-encoded.
enum FormEncoding {
    private static let unreserved = CharacterSet(charactersIn: "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789-._~")

    static func encode(_ text: String) -> String {
        text.addingPercentEncoding(withAllowedCharacters: unreserved) ?? ""
    }
}
#endif
