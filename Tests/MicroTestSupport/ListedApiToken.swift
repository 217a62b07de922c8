/// An API token as the tokens page and the users page answer it in JSON.
public struct ListedApiToken: Decodable, Equatable, Sendable {
    public var id: String
    public var name: String
    public var createdAt: String
    public var lastUsedAt: String?
    public var expiresAt: String
    public var scopes: [String]
    /// Only in the answer that made it.
    public var token: String?
}
